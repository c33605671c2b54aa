/// A keyed decoding container of the benchmark's bare decoders (``BareDecoder``, ``BareRowDecoder``):
/// every requirement it does not implement itself throws the bare decoders' refusal. A bare container
/// implements only the types its rows hold.
protocol BareKeyedDecoding: KeyedDecodingContainerProtocol {}

extension BareKeyedDecoding {
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool { throw BareDecoder.refusal("NULL") }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw BareDecoder.refusal("Bool") }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw BareDecoder.refusal("String") }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw BareDecoder.refusal("Double") }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw BareDecoder.refusal("Float") }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw BareDecoder.refusal("Int") }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw BareDecoder.refusal("Int8") }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw BareDecoder.refusal("Int16") }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw BareDecoder.refusal("Int32") }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw BareDecoder.refusal("Int64") }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw BareDecoder.refusal("UInt") }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw BareDecoder.refusal("UInt8") }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw BareDecoder.refusal("UInt16") }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw BareDecoder.refusal("UInt32") }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw BareDecoder.refusal("UInt64") }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        throw BareDecoder.refusal("\(T.self)")
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw BareDecoder.refusal("nested container")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw BareDecoder.refusal("nested unkeyed container")
    }

    func superDecoder() throws -> any Decoder { throw BareDecoder.refusal("super decoder") }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw BareDecoder.refusal("super decoder") }
}
