import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

@Suite("AssociationFiles", .takesTurns)
struct AssociationFilesTests {
    func appleDocument(_ app: App) throws -> [String: Any] {
        let data = AssociationFiles.appleAppSiteAssociation(for: app)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func androidStatements(_ app: App) throws -> [[String: Any]] {
        let data = AssociationFiles.assetLinks(for: app)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    @Test func appleFileHasApplinksDetailsWithTeamPrefixedAppIDs() throws {
        let app = Fixtures.app(ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: ["com.acme.app", "com.acme.app.beta"]))
        let document = try appleDocument(app)
        #expect(Set(document.keys) == ["applinks", "webcredentials"])
        let applinks = try #require(document["applinks"] as? [String: Any])
        let details = try #require(applinks["details"] as? [[String: Any]])
        #expect(details.count == 1)
        #expect(details[0]["appIDs"] as? [String] == ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.app.beta"])
        #expect(applinks["apps"] == nil, "the legacy 'apps' key is not needed in the current format")

        let webcredentials = try #require(document["webcredentials"] as? [String: Any])
        #expect(webcredentials["apps"] as? [String] == ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.app.beta"])
    }

    @Test func appleComponentsExcludeFerrysRoutesThenMatchEverything() throws {
        let details = try #require((try appleDocument(Fixtures.app())["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
        let components = try #require(details.first?["components"] as? [[String: Any]])
        #expect(components.count == AssociationFiles.excludedPaths.count + 1)
        for (component, path) in zip(components, AssociationFiles.excludedPaths) {
            #expect(component["/"] as? String == path)
            #expect(component["exclude"] as? Bool == true)
        }
        let last = try #require(components.last)
        #expect(last["/"] as? String == "/*")
        #expect(last["exclude"] == nil)
        #expect(AssociationFiles.excludedPaths.contains("/.well-known/*"))
        #expect(AssociationFiles.excludedPaths.contains("/.ferry/*"))
        #expect(AssociationFiles.excludedPaths.contains("/v1/*"))
    }

    @Test func appleFileWithoutTeamIDHasNoDetails() throws {
        let app = Fixtures.app(ios: IOSSettings(teamID: nil, bundleIDs: ["com.acme.app"]))
        let document = try appleDocument(app)
        let details = try #require((document["applinks"] as? [String: Any])?["details"] as? [Any])
        #expect(details.isEmpty)
        #expect((document["webcredentials"] as? [String: Any])?["apps"] as? [String] == [])
    }

    @Test func appleFileWithoutBundleIDsHasNoDetails() throws {
        let app = Fixtures.app(ios: IOSSettings(teamID: "ABCDE12345", bundleIDs: []))
        let details = try #require((try appleDocument(app)["applinks"] as? [String: Any])?["details"] as? [Any])
        #expect(details.isEmpty)
    }

    @Test func appleFileDoesNotEscapeSlashes() {
        let text = String(decoding: AssociationFiles.appleAppSiteAssociation(for: Fixtures.app()), as: UTF8.self)
        #expect(text.contains(#""/.well-known/*""#))
        #expect(!text.contains(#"\/"#))
    }

    @Test func assetLinksHaveRelationTargetPackageAndFingerprints() throws {
        let second = String(repeating: "AB:", count: 31) + "AB"
        let app = Fixtures.app(android: AndroidSettings(packageName: "com.acme.android", sha256Fingerprints: [Fixtures.fingerprint, second]))
        let statements = try androidStatements(app)
        #expect(statements.count == 1)
        let statement = try #require(statements.first)
        #expect(statement["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
        let target = try #require(statement["target"] as? [String: Any])
        #expect(target["namespace"] as? String == "android_app")
        #expect(target["package_name"] as? String == "com.acme.android")
        #expect(target["sha256_cert_fingerprints"] as? [String] == [Fixtures.fingerprint, second])
    }

    @Test(arguments: [
        AndroidSettings(packageName: nil, sha256Fingerprints: [Fixtures.fingerprint]),
        AndroidSettings(packageName: "com.acme.android", sha256Fingerprints: []),
        AndroidSettings(),
    ])
    func assetLinksAreEmptyWithoutPackageOrFingerprints(android: AndroidSettings) throws {
        #expect(try androidStatements(Fixtures.app(android: android)).isEmpty)
        #expect(String(decoding: AssociationFiles.assetLinks(for: Fixtures.app(android: android)), as: UTF8.self) == "[]")
    }
}
