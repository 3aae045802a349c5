import FerryCore
import Foundation
import Testing

/// Reading `multipart/form-data` as browsers send it, and refusing what is not.
@Suite("Multipart forms", .takesTurns)
struct MultipartFormTests {
    @Test func theBoundaryComesFromTheContentType() {
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=----WebKitFormBoundaryA1b2") == "----WebKitFormBoundaryA1b2")
        #expect(MultipartForm.boundary(contentType: "Multipart/Form-Data;BOUNDARY=\"quoted=one\"") == "quoted=one")
        #expect(MultipartForm.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartForm.boundary(contentType: "application/x-www-form-urlencoded; boundary=x") == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=" + String(repeating: "a", count: 71)) == nil)
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=") == nil)
    }

    @Test func partsKeepTheirNamesFileNamesAndBytes() throws {
        let text = "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok;en\r\n"
            + "--XyZ\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a;b \\\"c\\\".csv\"\r\nContent-Type: text/csv\r\n\r\n\u{FEFF}x,y\r\n1,2\r\n--XY\r\n"
            + "--XyZ--\r\nepilogue"
        let body = Array(text.utf8)
        let form = try MultipartForm(body: body, boundary: "XyZ")
        #expect(form.parts.map(\.name) == ["csrf", "file"])
        #expect(form.part("csrf")?.text == "tok;en" && form.part("csrf")?.filename == nil)
        let file = try #require(form.part("file"))
        #expect(file.filename == "a;b \"c\".csv" && file.contentType == "text/csv")
        #expect(file.text == "x,y\r\n1,2\r\n--XY", "a line that only starts like the boundary is content; the BOM is dropped")
        #expect(form.fields.value(of: "csrf") == "tok;en" && !form.fields.contains("file"))
        #expect(try MultipartForm(body: Array("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\n\u{00}\u{FF}\r\n--b--".utf8), boundary: "b")
            .part("f")?.body.count == 3)
    }

    @Test func whatIsNotAFormIsRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("", "no part"),
            ("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end", "ends before its last part"),
            ("--b\r\nContent-Disposition: form-data; name=\"a\"\r\nno blank line", "no end to its headers"),
            ("--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--b--", "not form-data"),
            ("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--", "no name"),
            ("--bjunk", "not separated"),
            ("--b", "not separated"),
            (String(repeating: "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n", count: 40) + "--b--", "more than 32 parts"),
            ("--b\r\n" + String(repeating: "X-Long: header\r\n", count: 400) + "\r\nx\r\n--b--", "no end to its headers"),
        ]
        for (body, words) in cases {
            #expect(throws: MultipartForm.Refusal.self, "\(words)") { try MultipartForm(body: Array(body.utf8), boundary: "b") }
            do { _ = try MultipartForm(body: Array(body.utf8), boundary: "b") } catch { #expect(error.message.contains(words), "\(error.message)") }
        }
    }
}
