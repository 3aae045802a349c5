#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import FerryTestSupport

@Suite("QR codes over HTTP", .takesTurns)
struct QRCodeAPITests {
    static let zbarimg = "/usr/bin/zbarimg"

    /// What zbar reads from a PNG, or nil.
    static func read(_ png: [UInt8]) async throws -> String? {
        try await onItsOwnThread { try readWaiting(png) }
    }

    static func readWaiting(_ png: [UInt8]) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-qr-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try ChildProcess.run(zbarimg, ["--raw", "-q", file.path], standardError: .discard)
        guard result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zbarimg), "needs zbar-tools"))
    func aLinksQRCodeReadsAsItsShortURLAtEveryLevel() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "summer-sale", destination: "https://example.com/sale"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            for level in ["L", "M", "Q", "H"] {
                let response = try await client.execute(uri: "/v1/links/\(link.id)/qr?format=png&size=300&ecc=\(level)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(try await Self.read(Array(buffer: response.body)) == "https://go.example.com/summer-sale", "level \(level)")
            }
            let svg = try await client.execute(uri: "/v1/links/\(link.id)/qr", method: .get, headers: headers(key: fixture.secret))
            #expect(svg.status == .ok)
            #expect(svg.headers[.contentType] == "image/svg+xml; charset=utf-8")
            #expect(svg.text.hasPrefix("<svg") && svg.text.contains("width=\"512\""))
        }
    }

    @Test func qrCodesRefuseBadOptionsByNameAndOtherTenants() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let path = "/v1/links/\(link.id)/qr"
            for (query, field) in [("format=gif", "format"), ("size=10", "size"), ("size=99999999999", "size"), ("size=abc", "size"),
                                   ("ecc=X", "ecc"), ("ecc=MM", "ecc")] {
                let response = try await client.execute(uri: "\(path)?\(query)", method: .get, headers: headers(key: fixture.secret))
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.error?.field == field, "\(query)")
            }
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.otherSecret)).status == .notFound)
            #expect(try await client.execute(uri: path, method: .get, headers: headers(key: fixture.publishable)).status == .forbidden)
            #expect(try await client.execute(uri: path, method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: path, method: .delete, headers: headers(key: fixture.secret)).status == .methodNotAllowed)
        }
    }
}
#endif
