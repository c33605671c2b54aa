/// The English plural of a type name's last word, for the default key of a to-many association:
/// irregular nouns (`child` → `children`, `person` → `people`, `mouse` → `mice` …), nouns that do
/// not change (`sheep`, `series`, `data` …), `-y` after a consonant → `-ies`, `-s`, `-x`, `-z`, `-ch`,
/// `-sh` → `-es`, `-is` → `-es`, the usual `-f`/`-fe` → `-ves`, and `-s` otherwise. The rules follow
/// those of Rails' and GRDB's inflections.
enum EnglishPlural {
    /// Irregular singulars and their plurals, lowercased.
    static let irregulars: [String: String] = [
        "child": "children", "person": "people", "man": "men", "woman": "women", "mouse": "mice",
        "louse": "lice", "goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "datum": "data",
        "medium": "media", "criterion": "criteria", "phenomenon": "phenomena", "cactus": "cacti",
        "fungus": "fungi", "nucleus": "nuclei", "octopus": "octopuses", "index": "indices",
        "matrix": "matrices", "vertex": "vertices", "appendix": "appendices", "quiz": "quizzes",
        "leaf": "leaves", "loaf": "loaves", "thief": "thieves", "die": "dice", "move": "moves",
        "sex": "sexes", "zombie": "zombies", "potato": "potatoes", "tomato": "tomatoes", "hero": "heroes",
        "echo": "echoes", "buffalo": "buffaloes", "volcano": "volcanoes", "torpedo": "torpedoes",
        "veto": "vetoes", "human": "humans", "german": "germans", "roman": "romans", "talisman": "talismans",
        "shaman": "shamans", "caiman": "caimans",
    ]

    /// Nouns whose plural is the same word, lowercased; plurals of the irregulars are kept too.
    static let uncountables: Set<String> = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "deer", "moose",
        "jeans", "police", "news", "data", "metadata", "aircraft", "offspring", "salmon", "trout", "swine",
        "bison", "software", "hardware", "feedback", "staff", "luggage", "baggage", "furniture", "advice",
        "music", "traffic", "weather", "research", "evidence", "knowledge", "homework", "mail", "media",
    ]

    /// Words ending in `-f` or `-fe` whose plural ends in `-ves`.
    static let fToVes: Set<String> = [
        "calf", "elf", "half", "knife", "life", "self", "sheaf", "shelf", "wife", "wolf", "scarf", "wharf",
        "hoof", "midwife", "housewife",
    ]

    /// The plural of `name`: its last word (after the last upper-case letter or underscore) made plural,
    /// keeping the case of its first letter.
    static func plural(of name: String) -> String {
        guard !name.isEmpty else { return name }
        var wordStart = name.startIndex
        for index in name.indices where index != name.startIndex {
            let previous = name[name.index(before: index)]
            let next = name.index(after: index) < name.endIndex ? name[name.index(after: index)] : nil
            // `lineItem` → `Item`; `URLChild` → `Child`; `line_item` → `item`.
            if name[index].isUppercase, !previous.isUppercase || next?.isLowercase == true {
                wordStart = index
            } else if previous == "_" {
                wordStart = index
            }
        }
        let head = name[..<wordStart]
        let word = String(name[wordStart...])
        return head + pluralWord(word)
    }

    /// The plural of one word, keeping the case of its first letter.
    static func pluralWord(_ word: String) -> String {
        let lower = word.lowercased()
        func keepingCase(_ plural: String) -> String {
            guard let first = word.first, first.isUppercase, let pluralFirst = plural.first else { return plural }
            return pluralFirst.uppercased() + plural.dropFirst()
        }
        if uncountables.contains(lower) || (irregulars[lower] == nil && irregulars.values.contains(lower)) {
            return word
        }
        if let irregular = irregulars[lower] {
            return keepingCase(irregular)
        }
        // The word's own letters, so that a suffix added keeps the rest as written.
        let stem = { (dropping: Int, adding: String) in String(word.dropLast(dropping)) + adding }
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) {
            return stem(1, "ies")
        }
        if lower.hasSuffix("is"), lower.count > 2 {
            return stem(2, "es")  // analysis → analyses, axis → axes
        }
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) {
            return stem(0, "es")
        }
        if fToVes.contains(lower) {
            return lower.hasSuffix("fe") ? stem(2, "ves") : stem(1, "ves")
        }
        return stem(0, "s")
    }
}
