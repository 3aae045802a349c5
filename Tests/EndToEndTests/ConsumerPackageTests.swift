#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import Testing
import FerryTestSupport

/// An app that adds this repository and links only FerryKit must resolve none of the server's dependencies.
@Suite("An app depending on FerryKit", .takesTurns)
struct ConsumerPackageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `swift` with arguments on a thread of its own (a build takes a while, and the tests running meanwhile
    /// need the few threads Swift's concurrency runs on); returns its exit status and output.
    static func swift(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try swiftWaiting(arguments) }) }.start()
        }
    }

    static func swiftWaiting(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run("/usr/bin/env", ["swift"] + arguments, standardError: .standardOutput)
        return (result.status, result.stdout)
    }

    static func dependencyIdentities(_ json: String) throws -> [String: [String]] {
        // show-dependencies prints a tree: each package with its own dependencies.
        guard let start = json.firstIndex(of: "{") else { return [:] }
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(json[start...].utf8)) as? [String: Any])
        var result: [String: [String]] = [:]
        func walk(_ node: [String: Any]) {
            let children = node["dependencies"] as? [[String: Any]] ?? []
            result[(node["identity"] as? String) ?? "?"] = children.compactMap { $0["identity"] as? String }
            children.forEach(walk)
        }
        walk(tree)
        return result
    }

    @Test(.timeLimit(.minutes(10)))
    func resolvesNothingButFerryAndBuildsAndRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-consumer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sources = directory.appendingPathComponent("Sources/ExampleApp")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let limeLinkSources = directory.appendingPathComponent("Sources/LimeLinkApp")
        try FileManager.default.createDirectory(at: limeLinkSources, withIntermediateDirectories: true)
        let identity = Self.repository.lastPathComponent
        try """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "ExampleApp",
            platforms: [.macOS(.v15), .iOS(.v15)],
            dependencies: [.package(path: "\(Self.repository.path)")],
            targets: [
                .executableTarget(name: "ExampleApp", dependencies: [.product(name: "FerryKit", package: "\(identity)")]),
                .executableTarget(name: "LimeLinkApp", dependencies: [.product(name: "FerryLimeLink", package: "\(identity)")]),
            ]
        )
        """.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try """
        import FerryKit
        import Foundation

        var options = FerryOptions(serverURL: URL(string: "https://links.example.com")!, linkDomains: ["go.example.com"])
        options.storage = InMemoryStorage()
        options.validatesKeyOnLaunch = false
        options.logLevel = .none
        let ferry = try Ferry(apiKey: "fk_live_" + String(repeating: "x", count: 32), options: options)
        let path = Ferry.parsePathParams(from: URL(string: "https://go.example.com/link/product/42")!)
        // The wire types an app meets come with FerryKit, without importing FerryAPI.
        let utm = UTMParameters(source: "newsletter")
        let code: APIErrorCode = .rateLimited
        print(utm.source ?? "-", code.httpStatus ?? 0)
        print(ferry.canHandle(URL(string: "https://go.example.com/summer")!), path.mainPath, path.subPath ?? "-")
        """.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        // An app moving from the LimeLink SDK: its calls, by their names, from FerryLimeLink alone.
        try """
        import FerryLimeLink
        import Foundation

        let path = parsePathParams(from: URL(string: "https://abc123.go.example.com/link/Spring?test=1")!)
        let deeper = parsePathParams(from: URL(string: "https://go.example.com/Spring/Offers/Shoes")!)
        print(path.mainPath, path.subPath ?? "-", deeper.mainPath, deeper.subPath ?? "-", UniversalLink.shared === UniversalLink.shared)
        """.write(to: limeLinkSources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

        let packagePath = ["--package-path", directory.path]
        let resolve = try await Self.swift(["package"] + packagePath + ["resolve"])
        #expect(resolve.status == 0, "\(resolve.output)")
        let shown = try await Self.swift(["package"] + packagePath + ["show-dependencies", "--format", "json"])
        #expect(shown.status == 0, "\(shown.output)")
        let consumer = try Self.dependencyIdentities(shown.output)
        #expect(consumer[directory.lastPathComponent.lowercased()] == [identity.lowercased()])
        #expect(consumer[identity.lowercased()] == [], "an app linking FerryKit resolved \(consumer[identity.lowercased()] ?? [])")
        let checkouts = directory.appendingPathComponent(".build/checkouts")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: checkouts.path))?.isEmpty ?? true)

        // The repository itself does depend on the server's packages: the check above is not vacuous.
        // (A scratch path of its own, so this does not wait for the lock of the build running these tests.)
        let root = try await Self.swift(["package", "--package-path", Self.repository.path, "--scratch-path", directory.appendingPathComponent("root-scratch").path, "dump-package"])
        #expect(root.status == 0 && root.output.contains("hummingbird-project/hummingbird") && root.output.contains("GRDB.swift"), "\(root.output)")

        let build = try await Self.swift(["build", "--product", "ExampleApp"] + packagePath)
        #expect(build.status == 0, "\(build.output)")
        let run = try await Self.swift(["run", "--skip-build"] + packagePath + ["ExampleApp"])
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("newsletter 429\ntrue product 42"), "\(run.output)")
        // An app that links FerryKit alone compiled nothing of FerryLimeLink (its build folder holds the plan's maps only,
        // since this package names it for the other app).
        func compiled(_ module: String) -> [String] {
            let files = FileManager.default.enumerator(atPath: directory.appendingPathComponent(".build").path)?.compactMap { $0 as? String } ?? []
            return files.filter { $0.contains(module) && ($0.hasSuffix(".o") || $0.hasSuffix(".swiftmodule") || $0.hasSuffix(".swiftdeps")) }
        }
        #expect(!compiled("FerryKit").isEmpty, "the build left no FerryKit objects to compare with")
        #expect(compiled("FerryLimeLink").isEmpty, "\(compiled("FerryLimeLink").prefix(5))")

        // The LimeLink names are FerryLimeLink's: the app that links it gets LimeLink's answers.
        let limeLink = try await Self.swift(["build", "--product", "LimeLinkApp"] + packagePath)
        #expect(limeLink.status == 0, "\(limeLink.output)")
        #expect(!compiled("FerryLimeLink").isEmpty, "the check of the FerryKit app above looks where FerryLimeLink's objects go")
        let limeLinkRun = try await Self.swift(["run", "--skip-build"] + packagePath + ["LimeLinkApp"])
        #expect(limeLinkRun.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("link - Spring Shoes true"), "\(limeLinkRun.output)")

        // The server's admin wire types (creating links, webhooks, statistics) are not part of what an app sees.
        try "let request = CreateLinkRequest(destination: \"https://example.com\")\n"
            .write(to: sources.appendingPathComponent("Admin.swift"), atomically: true, encoding: .utf8)
        let admin = try await Self.swift(["build", "--product", "ExampleApp"] + packagePath)
        #expect(admin.status != 0 && admin.output.contains("cannot find 'CreateLinkRequest' in scope"), "\(admin.output)")
        // Nor are LimeLink's names: FerryKit stays free of them.
        try "let status: () = saveLimeLinkStatus(url: nil, privateKey: \"\")\nlet first = LinkStats.isFirstLaunch()\n"
            .write(to: sources.appendingPathComponent("Admin.swift"), atomically: true, encoding: .utf8)
        let names = try await Self.swift(["build", "--product", "ExampleApp"] + packagePath)
        #expect(names.status != 0 && names.output.contains("cannot find 'saveLimeLinkStatus' in scope") && names.output.contains("cannot find 'LinkStats' in scope"),
                "\(names.output)")
    }
}
#endif
