import CSQLite
import Foundation
import Testing

@testable import Bindery

/// Issue 35: annotations that follow a request's grouping (2), a to-many association's order that
/// replaces (6), to-many keys chunked by the connection's parameter limit (8), English plurals for
/// default keys (9), to-many rows grouped as SQLite compares their keys (16).
@Suite struct AssociationFixTests {
    struct Team: Record, Equatable {
        static let tableName = "team"
        var id: Int64
        var name: String
        static let players = hasMany(Player.self).order("\(Column("position", table: "players"))")
    }

    struct Player: Record, Equatable {
        static let tableName = "player"
        var id: Int64
        var teamId: Int64
        var name: String
        var position: Int
        var score: Int
        var nick: String
    }

    static func teams() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER NOT NULL REFERENCES team(id),
                    name TEXT NOT NULL, position INTEGER NOT NULL, score INTEGER NOT NULL,
                    nick TEXT NOT NULL COLLATE NOCASE);
                INSERT INTO team VALUES (1, 'Reds'), (2, 'Reds'), (3, 'Blues'), (4, 'Greens'), (5, 'Reds');
                INSERT INTO player VALUES (1, 1, 'Zed', 1, 10, 'c'), (2, 1, 'Amy', 2, 20, 'a'),
                    (3, 2, 'Bob', 1, 5, 'B'), (4, 3, 'Cy', 1, 7, 'd'), (5, 5, 'Eve', 1, 1, 'e');
                """)
        return conn
    }

    struct GroupCount: Decodable, Equatable {
        var name: String
        var playerCount: Int
    }

    // MARK: 2. Annotations follow the request's grouping

    @Test func groupedCountCountsEveryRowOfTheGroup() throws {
        let conn = try Self.teams()
        let request = Team.all().select("team.name").annotated(with: Team.players.count).group("team.name")
            .order("team.name")
        #expect(
            try conn.fetchAll(GroupCount.self, request) == [
                GroupCount(name: "Blues", playerCount: 1), GroupCount(name: "Greens", playerCount: 0),
                GroupCount(name: "Reds", playerCount: 4),
            ])
        #expect(try conn.fetchCount(request) == 3)
    }

    struct GroupAggregates: Decodable, Equatable {
        var name: String
        var playerScoreSum: Int?
        var playerScoreMin: Int?
        var playerScoreMax: Int?
        var playerScoreAverage: Double?
        var playerNickMin: String?
        var playerNickMax: String?
    }

    @Test func groupedAggregatesAreThoseOfAllTheGroupsRows() throws {
        let conn = try Self.teams()
        let players = Team.players
        let request = Team.all().select("team.name")
            .annotated(
                with: players.sum("score"), players.min("score"), players.max("score"), players.average("score"),
                players.min("nick"), players.max("nick")
            )
            .group("team.name").order("team.name")
        let rows = try conn.fetchAll(GroupAggregates.self, request)
        #expect(
            rows == [
                GroupAggregates(
                    name: "Blues", playerScoreSum: 7, playerScoreMin: 7, playerScoreMax: 7, playerScoreAverage: 7,
                    playerNickMin: "d", playerNickMax: "d"),
                GroupAggregates(
                    name: "Greens", playerScoreSum: nil, playerScoreMin: nil, playerScoreMax: nil,
                    playerScoreAverage: nil, playerNickMin: nil, playerNickMax: nil),
                // The nicks compare by their column's NOCASE collation: 'a' < 'B' < 'c' < 'e'.
                GroupAggregates(
                    name: "Reds", playerScoreSum: 36, playerScoreMin: 1, playerScoreMax: 20,
                    playerScoreAverage: 9, playerNickMin: "a", playerNickMax: "e"),
            ])
    }

    @Test func groupedAnnotationsWithHavingFiltersAndAssociationFilters() throws {
        let conn = try Self.teams()
        let base = Team.all().select("team.name").group("team.name").order("team.name")
        let having = base.annotated(with: Team.players.count).having("playerCount > \(3)")
        #expect(try conn.fetchAll(GroupCount.self, having) == [GroupCount(name: "Reds", playerCount: 4)])
        #expect(try conn.fetchCount(having) == 1)
        // A filter given after the grouping still applies to the rows before it.
        let filtered = base.annotated(with: Team.players.count).filter("team.id <> \(2)")
        #expect(
            try conn.fetchAll(GroupCount.self, filtered) == [
                GroupCount(name: "Blues", playerCount: 1), GroupCount(name: "Greens", playerCount: 0),
                GroupCount(name: "Reds", playerCount: 3),
            ])
        let strong = base.annotated(with: Team.players.filter("score > \(4)").count)
        #expect(
            try conn.fetchAll(GroupCount.self, strong) == [
                GroupCount(name: "Blues", playerCount: 1), GroupCount(name: "Greens", playerCount: 0),
                GroupCount(name: "Reds", playerCount: 3),
            ])
    }

    @Test func annotationOfAnAggregateSelectionWithoutGroup() throws {
        struct Total: Decodable, Equatable {
            var teams: Int
            var playerCount: Int
        }
        let conn = try Self.teams()
        let request = Team.all().select("count(*) AS teams").annotated(with: Team.players.count)
        #expect(try conn.fetchAll(Total.self, request) == [Total(teams: 5, playerCount: 5)])
        // A window function and min with two arguments do not aggregate: one row per team.
        let perRow = Team.all().select("team.name, min(team.id, 2) AS m, count(*) OVER () AS n")
            .annotated(with: Team.players.count)
        #expect(try conn.fetchAll(GroupCount.self, perRow.order("team.id")).map(\.playerCount) == [2, 1, 1, 0, 1])
    }

    @Test func groupedAnnotationWithAToManyJoinThrows() throws {
        let conn = try Self.teams()
        let request = Team.all().select("team.name").joining(required: Team.players)
            .annotated(with: Team.players.forKey("counted").count).group("team.name")
        #expect(throws: AssociationError.annotationOfGroupedJoin(annotation: "playerCount", association: "players")) {
            try conn.fetchAll(GroupCount.self, request)
        }
        // Ungrouped, each row keeps its own count.
        let rows = try conn.fetchAll(
            GroupCount.self,
            Team.all().select("team.name").annotated(with: Team.players.count).order("team.id"))
        #expect(rows.map(\.playerCount) == [2, 1, 1, 0, 1])
    }

    // MARK: 6. A to-many association's order replaces; thenOrder appends

    struct TeamPlayers: Decodable, Equatable {
        var team: Team
        var players: [Player]
    }

    @Test func associationOrderReplacesAndThenOrderAppends() throws {
        let conn = try Self.teams()
        let declared = try conn.fetchAll(TeamPlayers.self, Team.including(all: Team.players).filter("team.id = \(1)"))
        #expect(declared.first?.players.map(\.name) == ["Zed", "Amy"])
        let byName = try conn.fetchAll(
            TeamPlayers.self,
            Team.including(all: Team.players.order("\(Team.players.column("name"))")).filter("team.id = \(1)"))
        #expect(byName.first?.players.map(\.name) == ["Amy", "Zed"])
        // Appended to the declared order: by position, then by name.
        let then = try conn.fetchAll(
            TeamPlayers.self,
            Team.including(all: Team.players.thenOrder("\(Team.players.column("name"))")).filter("team.id = \(1)"))
        #expect(then.first?.players.map(\.name) == ["Zed", "Amy"])
        let replacedThenAppended = Team.players.order("\(Team.players.column("teamId"))")
            .thenOrder("\(Team.players.column("name"))")
        let both = try conn.fetchAll(
            TeamPlayers.self, Team.including(all: replacedThenAppended).filter("team.id = \(1)"))
        #expect(both.first?.players.map(\.name) == ["Amy", "Zed"])
    }

    // MARK: 8. Keys chunked by the connection's parameter limit, whatever their type

    struct Box: Record {
        static let tableName = "boxes"
        var id: Data
        static let items = hasMany(Item.self)
    }

    struct Item: Record {
        static let tableName = "items"
        var id: Int64
        var boxId: Data
    }

    struct BoxItems: Decodable {
        var box: Box
        var items: [Item]
    }

    @Test(arguments: [nil, 50] as [Int32?]) func blobKeysOfManyParents(limit: Int32?) throws {
        let conn = try Connection.inMemory()
        if let limit { sqlite3_limit(conn.handle, SQLITE_LIMIT_VARIABLE_NUMBER, limit) }
        try conn.execute(
            script: """
                CREATE TABLE boxes(id BLOB PRIMARY KEY);
                CREATE TABLE items(id INTEGER PRIMARY KEY, boxId BLOB NOT NULL REFERENCES boxes(id));
                """)
        try conn.transaction { conn in
            for index in 0..<1_200 {
                let id = withUnsafeBytes(of: Int64(index).bigEndian) { Data($0) }
                try conn.execute("INSERT INTO boxes VALUES (\(id))")
                try conn.execute("INSERT INTO items(boxId) VALUES (\(id))")
                try conn.execute("INSERT INTO items(boxId) VALUES (\(id))")
            }
        }
        let boxes = try conn.fetchAll(
            BoxItems.self, Box.including(all: Box.items.filter("\(Box.items.column("id")) > \(0)")))
        #expect(boxes.count == 1_200)
        #expect(boxes.allSatisfy { box in box.items.count == 2 && box.items.allSatisfy { $0.boxId == box.box.id } })
    }

    @Test func associationWhoseConditionsTakeEveryParameterThrows() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE boxes(id BLOB PRIMARY KEY);
                CREATE TABLE items(id INTEGER PRIMARY KEY, boxId BLOB NOT NULL REFERENCES boxes(id));
                INSERT INTO boxes VALUES (x'01');
                """)
        sqlite3_limit(conn.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 2)
        let id = Box.items.column("id")
        let request = Box.including(all: Box.items.filter("\(id) > \(0) AND \(id) < \(9)"))
        #expect(throws: AssociationError.tooManyParameters(association: "items", parameters: 3, limit: 2)) {
            try conn.fetchAll(BoxItems.self, request)
        }
    }

    struct Shelf: Record {
        static let tableName = "shelves"
        static let primaryKey = ["room", "number"]
        var room: String
        var number: Int
        static let books = hasMany(Book.self)
    }

    struct Book: Record {
        static let tableName = "books"
        var id: Int64
        var room: String
        var number: Int
    }

    struct ShelfBooks: Decodable {
        var shelf: Shelf
        var books: [Book]
    }

    @Test func compositeKeysPastALoweredLimit() throws {
        let conn = try Connection.inMemory()
        sqlite3_limit(conn.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 7)
        try conn.execute(
            script: """
                CREATE TABLE shelves(room TEXT, number INTEGER, PRIMARY KEY (room, number));
                CREATE TABLE books(id INTEGER PRIMARY KEY, room TEXT, number INTEGER,
                    FOREIGN KEY (room, number) REFERENCES shelves(room, number));
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
                INSERT INTO shelves SELECT 'r' || (i % 3), i FROM n;
                INSERT INTO books(room, number) SELECT room, number FROM shelves;
                """)
        let shelves = try conn.fetchAll(ShelfBooks.self, Shelf.including(all: Shelf.books))
        #expect(shelves.count == 100)
        #expect(
            shelves.allSatisfy { shelf in
                shelf.books.count == 1 && shelf.books[0].room == shelf.shelf.room
                    && shelf.books[0].number == shelf.shelf.number
            })
    }

    // MARK: 9. English plurals

    @Test func defaultToManyKeysAreEnglishPlurals() {
        let cases: [String: String] = [
            "child": "children", "person": "people", "man": "men", "woman": "women", "mouse": "mice",
            "datum": "data", "goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "category": "categories",
            "day": "days", "address": "addresses", "box": "boxes", "church": "churches", "dish": "dishes",
            "quiz": "quizzes", "wolf": "wolves", "knife": "knives", "leaf": "leaves", "roof": "roofs",
            "sheep": "sheep", "series": "series", "species": "species", "news": "news", "status": "statuses",
            "analysis": "analyses", "order": "orders", "lineItem": "lineItems", "goldenChild": "goldenChildren",
            "salesPerson": "salesPeople", "uRLChild": "uRLChildren", "people": "people", "data": "data",
            "human": "humans", "hero": "heroes",
        ]
        for (singular, plural) in cases {
            #expect(EnglishPlural.plural(of: singular) == plural, "\(singular)")
        }
    }

    struct Parent: Record {
        static let tableName = "parents"
        var id: Int64
        static let children = hasMany(Child.self)
        static let people = hasMany(Person.self)
    }

    struct Child: Record, Equatable {
        static let tableName = "children"
        var id: Int64
        var parentId: Int64
    }

    struct Person: Record, Equatable {
        static let tableName = "people"
        var id: Int64
        var parentId: Int64
    }

    struct Family: Decodable {
        var parent: Parent
        var children: [Child]
        var people: [Person]
    }

    @Test func irregularPluralKeysDecode() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE parents(id INTEGER PRIMARY KEY);
                CREATE TABLE children(id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id));
                CREATE TABLE people(id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parents(id));
                INSERT INTO parents VALUES (1);
                INSERT INTO children VALUES (1, 1), (2, 1);
                INSERT INTO people VALUES (1, 1);
                """)
        #expect(Parent.children.key == "children" && Parent.people.key == "people")
        let families = try conn.fetchAll(
            Family.self, Parent.all().including(all: Parent.children).including(all: Parent.people))
        #expect(families.first?.children.count == 2 && families.first?.people.count == 1)
    }

    // MARK: 16. To-many rows grouped as SQLite compares the keys

    struct Folder: Record {
        static let tableName = "folders"
        var id: String
        static let files = hasMany(File.self)
    }

    struct File: Record {
        static let tableName = "files"
        var id: Int64
        var folderId: String
    }

    struct FolderFiles: Decodable {
        var folder: Folder
        var files: [File]
    }

    @Test func collationsGroupAsTheyMatch() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                PRAGMA foreign_keys = OFF;
                CREATE TABLE folders(id TEXT PRIMARY KEY);
                CREATE TABLE files(id INTEGER PRIMARY KEY,
                    folderId TEXT COLLATE NOCASE REFERENCES folders(id));
                INSERT INTO folders VALUES ('abc'), ('xyz');
                INSERT INTO files VALUES (1, 'ABC'), (2, 'abc'), (3, 'Xyz'), (4, 'other');
                """)
        let folders = try conn.fetchAll(FolderFiles.self, Folder.including(all: Folder.files).order("id"))
        #expect(folders.map { $0.files.map(\.id).sorted() } == [[1, 2], [3]])
        // The same rows as the join of the two tables.
        let joined = try conn.rows("SELECT count(*) FROM folders JOIN files ON files.folderId = folders.id")
        #expect(try joined[0][0] as Int == 3)
    }

    @Test func rtrimCollationGroupsAsItMatches() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                PRAGMA foreign_keys = OFF;
                CREATE TABLE folders(id TEXT PRIMARY KEY);
                CREATE TABLE files(id INTEGER PRIMARY KEY, folderId TEXT COLLATE RTRIM REFERENCES folders(id));
                INSERT INTO folders VALUES ('a');
                INSERT INTO files VALUES (1, 'a  '), (2, 'a');
                """)
        let folders = try conn.fetchAll(FolderFiles.self, Folder.including(all: Folder.files))
        #expect(folders.first?.files.map(\.id).sorted() == [1, 2])
    }

    struct Owner: Record {
        static let tableName = "owners"
        var id: Int64
        static let pets = hasMany(Pet.self)
    }

    struct Pet: Record {
        static let tableName = "pets"
        var id: Int64
        var ownerId: String
    }

    struct OwnerPets: Decodable {
        var owner: Owner
        var pets: [Pet]
    }

    @Test func textKeyAgainstIntegerKeysGroupsAsItMatches() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE owners(id INTEGER PRIMARY KEY);
                CREATE TABLE pets(id INTEGER PRIMARY KEY, ownerId TEXT REFERENCES owners(id));
                INSERT INTO owners VALUES (1), (2);
                INSERT INTO pets VALUES (1, '1'), (2, '2'), (3, '1');
                """)
        let owners = try conn.fetchAll(OwnerPets.self, Owner.including(all: Owner.pets).order("id"))
        #expect(owners.map { $0.pets.map(\.id).sorted() } == [[1, 3], [2]])
    }

    @Test func keyTypeMismatchSaysWhatHappened() {
        let text = AssociationError.keyTypeMismatch(
            association: "files", column: "folderId", value: "text 'X'", expected: "text 'x'"
        ).description
        #expect(text.contains("files") && text.contains("folderId") && !text.contains("different types"))
    }
}
