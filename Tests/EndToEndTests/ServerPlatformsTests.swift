#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import Testing
import FerryTestSupport

/// The server runs on macOS and Linux, while the package also declares FerryKit's platforms and SwiftPM builds every
/// target on each of them: the server's targets compile to nothing elsewhere and build their dependencies only where
/// they run. Nothing here builds for those other platforms, so these checks hold the rule.
@Suite("The server's platforms", .takesTurns)
struct ServerPlatformsTests {
    static let repository = ConsumerPackageTests.repository
    static let guardLine = "#if os(macOS) || os(Linux)"
    /// The folders of the targets that make up the server, with their tests and tools.
    static let serverFolders = [
        "Sources/FerryStore", "Sources/FerryServer", "Sources/ferry", "Benchmarks/FerryBench",
        "Tests/FerryStoreTests", "Tests/FerryServerTests", "Tests/EndToEndTests",
    ]
    static let serverTargets: Set = ["FerryStore", "FerryServer", "ferry", "FerryBench", "FerryStoreTests", "FerryServerTests", "EndToEndTests"]

    /// Whether `text` lies wholly inside one `#if os(macOS) || os(Linux)`: it opens the file, and the block it opens
    /// closes on the last line (an `#else` before that is what the file holds for other platforms).
    static func isWhollyGuarded(_ text: String) -> Bool {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let code = lines.indices.filter { !lines[$0].isEmpty }
        guard let first = code.first, let last = code.last, lines[first].hasPrefix(guardLine) else { return false }
        var depth = 0
        for index in first...last {
            if lines[index].hasPrefix("#if") { depth += 1 }
            if lines[index].hasPrefix("#endif") { depth -= 1 }
            if depth == 0 { return index == last }
        }
        return false
    }

    @Test func theGuardCheckTellsAWhollyGuardedFileFromOthers() {
        #expect(Self.isWhollyGuarded("#if os(macOS) || os(Linux)  // why\nimport A\n#if os(Linux)\nlet a = 1\n#endif\n#else\nlet b = 2\n#endif\n"))
        #expect(!Self.isWhollyGuarded("import A\n"))
        #expect(!Self.isWhollyGuarded("import A\n#if os(macOS) || os(Linux)\nlet a = 1\n#endif\n"))
        #expect(!Self.isWhollyGuarded("#if os(macOS) || os(Linux)\nlet a = 1\n#endif\nlet leaked = 2\n"))
        #expect(!Self.isWhollyGuarded("#if os(Linux)\nlet a = 1\n#endif\n"))
    }

    @Test func everyFileOfTheServerIsWhollyGuarded() throws {
        var checked = 0
        for folder in Self.serverFolders {
            let root = Self.repository.appendingPathComponent(folder)
            let files = try #require(FileManager.default.subpaths(atPath: root.path)).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                #expect(Self.isWhollyGuarded(text), "\(folder)/\(file) must open with `\(Self.guardLine)` and close it on its last line")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    /// The manifest as SwiftPM reads it: every product a server target uses is built only on macOS and Linux, and
    /// every other target uses no product at all (FerryKit and what it links build everywhere, from this package alone).
    @Test(.timeLimit(.minutes(5)))
    func theServersDependenciesAreBuiltOnlyWhereItRuns() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let dump = try await ConsumerPackageTests.swift(["package", "--package-path", Self.repository.path, "--scratch-path", scratch.path, "dump-package"])
        #expect(dump.status == 0, "\(dump.output)")
        let start = try #require(dump.output.firstIndex(of: "{"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(dump.output[start...].utf8)) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        var serverProducts = 0
        for target in targets {
            let name = try #require(target["name"] as? String)
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                guard let product = dependency["product"] as? [Any] else { continue }
                #expect(Self.serverTargets.contains(name), "\(name) uses the product \(product[0]), which only the server's targets may")
                let condition = product.last as? [String: Any]
                #expect(condition?["platformNames"] as? [String] == ["macos", "linux"], "\(name) must use \(product[0]) on macOS and Linux only")
                serverProducts += 1
            }
        }
        #expect(serverProducts > 20)
    }
}
#endif
