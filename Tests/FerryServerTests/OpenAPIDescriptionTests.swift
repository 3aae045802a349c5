import FerryAPI
import FerryCore
import FerryServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What docs/openapi.yaml (served at `/openapi.yaml`) claims, checked against the server.
@Suite("API description")
struct OpenAPIDescriptionTests {
    /// The description's text.
    static let text: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/openapi.yaml")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    /// Every path of the description with the methods it lists (upper-case), read from the document's layout: a path
    /// is a key indented by two spaces under `paths:`, its operations keys indented by four.
    static let paths: [(path: String, methods: Set<String>)] = {
        var result: [(path: String, methods: Set<String>)] = []
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                result.append((String(line.dropFirst(2).dropLast()), []))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), !result.isEmpty {
                let key = line.dropFirst(4).dropLast()
                if ["get", "head", "post", "put", "patch", "delete", "options", "trace"].contains(key) {
                    result[result.count - 1].methods.insert(key.uppercased())
                }
            }
        }
        return result
    }()

    /// The methods a client may send, as `MethodGuard` knows them.
    static let probed = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]

    @Test func theDescriptionListsTheRoutes() {
        #expect(Self.paths.count > 30)
        #expect(Self.paths.contains { $0.path == "/v1/links" && $0.methods == ["GET", "POST"] })
        #expect(Self.paths.contains { $0.path == "/" && $0.methods == ["GET"] })
    }

    /// Every path the description lists answers 405 with an `Allow` header naming exactly the methods it lists, for
    /// every other method; only the link paths (`/{slug}`, `/link/{slug}`) answer those with the 404 page, as the
    /// description says.
    @Test func undescribedMethodsAreAnswered405WithAllow() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let pages = ["/{slug}", "/link/{slug}"]
        try await fixture.application().test(.router) { client in
            for (path, methods) in Self.paths {
                let uri = path.replacingOccurrences(of: "{id}", with: "lnk_3fJ9kQ2mX8vB7nL1pR4sT6").replacingOccurrences(of: "{slug}", with: "promo")
                for method in Self.probed where !methods.contains(method) {
                    let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method)!, headers: headers(key: fixture.secret))
                    if pages.contains(path) {
                        #expect(response.status == .notFound, "\(method) \(path)")
                        continue
                    }
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    let allowed = Set((response.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    #expect(allowed == methods.subtracting(["HEAD"]), "Allow of \(method) \(path)")
                    if method != "HEAD" { #expect(response.error?.code == "method_not_allowed", "\(method) \(path)") }
                }
            }
            // Not in the description (the operator's scraper reads it), but answered the same way.
            let metrics = try await client.execute(uri: "/metrics", method: .post, headers: headers())
            #expect(metrics.status == .methodNotAllowed)
            #expect(metrics.headers[.allow] == "GET")
        }
    }

    /// Every method the description lists for a path is routed: with real ids, none answers 405 or the answer of a
    /// path that is not a route.
    @Test func describedMethodsAreRouted() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let link = try await fixture.admin.createLink(CreateLinkRequest(slug: "promo", destination: "https://example.com/promo"), app: fixture.app, environment: .live)
        try await fixture.application().test(.router) { client in
            let created = try await client.execute(uri: "/v1/webhooks", method: .post, headers: headers(key: fixture.secret, json: true),
                                                   body: jsonBody(#"{"url": "https://hooks.example.com/ferry"}"#))
            #expect(created.status == .created)
            let webhook = try created.decode(WebhookResponse.self).id
            // Deletions last, so that the other operations still find what they name.
            let ordered = Self.paths.flatMap { path, methods in methods.map { (path: path, method: $0) } }.sorted { ($0.method == "DELETE" ? 1 : 0) < ($1.method == "DELETE" ? 1 : 0) }
            for (path, method) in ordered {
                let id = path.hasPrefix("/v1/webhooks/") ? webhook : link.id
                let uri = path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{slug}", with: "promo")
                let body = ["POST", "PATCH"].contains(method) ? jsonBody("{}") : nil
                let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method)!, headers: headers(key: fixture.secret, json: body != nil), body: body)
                #expect(response.status != .methodNotAllowed, "\(method) \(path)")
                #expect(response.error?.message != "no such API route", "\(method) \(path)")
                #expect(!(response.status == .notFound && (response.headers[.contentType] ?? "").hasPrefix("text/html")), "\(method) \(path)")
            }
        }
    }
}
