#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
@testable import FerryStore
import FerryTestSupport
import Foundation
import Testing

@Suite("JSON text columns", .takesTurns)
struct JSONTextTests {
    /// What the short reader of string lists gives must be what the JSON decoder gives, or nothing.
    @Test func stringListsReadWithoutTheDecoderAgreeWithIt() throws {
        let written = [[], ["com.example.app"], ["a", "b,c", "ü 🚀", "]", "["], [""], ["x y", "\"quoted\"", "back\\slash", "tab\t"]]
        for list in written {
            let text = JSONText.encode(list)
            let read: [String]? = JSONText.decode(text)
            #expect(read == list, "\(text)")
        }
        #expect(JSONText.plainStrings(#"["a","b"]"#) == ["a", "b"])
        #expect(JSONText.plainStrings(#"["a\"b"]"#) == nil, "escapes go to the decoder")
        // Anything not written as `encode` writes it is left to the decoder, which reads it or refuses it.
        for text in ["[", "]", "[,]", #"["a",]"#, #"["a""b"]"#, #"[ "a" ]"#, #"["a",1]"#, #"{"a":1}"#, "", #"["a"#, #"["a"]x"#] {
            let short = JSONText.plainStrings(text)
            let decoded = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
            #expect(short == nil || short == decoded, "\(text)")
            let read: [String]? = JSONText.decode(text)
            #expect(read == decoded, "\(text)")
        }
    }
}
#endif
