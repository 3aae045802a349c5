#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
import Logging
import NIOCore

/// Prepares databases for the benchmark scripts in `Benchmarks/` and measures what is measured below HTTP.
///
/// `FERRY_BENCHMARKS=1 swift run -c release FerryBench seed --database sqlite:/tmp/bench.sqlite --links 1000000 --slugs /tmp/slugs.txt`
/// (the tool is only in the package with `FERRY_BENCHMARKS` set, as Benchmarks/lib.sh sets it).
@main
struct FerryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmark helpers: seed a database with links and clicks, measure the store's click ingestion.",
        subcommands: [Seed.self, Ingest.self, Append.self]
    )
}

/// Deterministic pseudo-random numbers (SplitMix64), so that every run seeds the same data.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The slug of the i-th benchmark link.
func benchSlug(_ index: Int) -> String { "b" + String(index, radix: 36) }

/// A click as the edge would record it, from a seeded device population: addresses from a pool of networks, the
/// platform mix of a mobile campaign, real user agents.
func makeClick(index: Int, linkIDs: [String], appID: String, time: Date, hasher: AddressHasher, random: inout SplitMix) -> Click {
    let agents: [(String, ClientPlatform, String?, String?)] = [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1", .iOS, "18.5", "iphone"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1", .iOS, "17.6.1", "iphone"),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", .android, "14", nil),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", .desktop, nil, nil),
    ]
    let agent = agents[Int(random.next() % UInt64(agents.count))]
    // 65,536 networks of up to 256 hosts: clicks share networks and, now and then, addresses, as real traffic does.
    let network = UInt32(random.next() % 65_536)
    let address = IPAddress.v4(0x0A00_0000 | (network << 8) | UInt32(random.next() % 256))
    var id = SplitMix(state: UInt64(index) &* 0x2545_F491_4F6C_DD1D)
    return Click(
        id: Identifiers.makeTimeOrdered(prefix: "clk", at: time, using: &id), linkID: linkIDs[Int(random.next() % UInt64(linkIDs.count))], appID: appID,
        environment: .live, createdAt: time, ipHash: hasher.hash(address), networkHash: hasher.hashNetwork(address),
        userAgent: agent.0, platform: agent.1, referer: random.next() % 3 == 0 ? "https://news.example.org/" : nil,
        query: random.next() % 4 == 0 ? "utm_source=newsletter&utm_campaign=spring" : nil, acceptLanguage: "en-US,en;q=0.9",
        osVersion: agent.2, appleDevice: agent.3
    )
}

struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an app, keys, N links (slugs b0, b1, …) and M clicks inside the attribution window; prints the keys as shell variables."
    )
    @Option(help: "sqlite:PATH or postgres://…") var database: String
    @Option(help: "The app's link domain.") var domain = "bench.test"
    @Option(help: "How many links.") var links = 1000
    @Option(help: "How many clicks, spread over the last 20 hours.") var clicks = 0
    @Option(help: "Write this many link slugs, drawn evenly over all links, to --slugs.") var sample = 10_000
    @Option(help: "File for the sampled slugs, one per line.") var slugs: String?

    func run() async throws {
        let store = try await DatabaseLocation(parsing: database).open()
        let admin = FerryAdmin(store: store)
        var spec = FerryAdmin.AppSpec(name: "Benchmark", domains: [domain])
        spec.bundleIDs = ["com.example.bench"]
        spec.teamID = "ABCDE12345"
        spec.appStoreID = "1234567890"
        spec.urlScheme = "benchapp"
        spec.androidPackage = "com.example.bench"
        spec.fallbackURL = "https://example.com/"
        let app = try await admin.createApp(spec)
        let secret = try await admin.createKey(appID: app.id, kind: .secret, environment: .live)
        let publishable = try await admin.createKey(appID: app.id, kind: .publishable, environment: .live)

        let started = ContinuousClock.now
        var linkIDs: [String] = []
        linkIDs.reserveCapacity(links)
        for index in 0..<links {
            var request = CreateLinkRequest(destination: "https://example.com/products/\(index)")
            request.slug = benchSlug(index)
            request.iosURL = "benchapp://products/\(index)"
            request.campaign = "bench"
            linkIDs.append(try await admin.createLink(request, app: app, environment: .live).id)
            if index > 0, index % 100_000 == 0 { FileHandle.standardError.write(Data("  \(index) links\n".utf8)) }
        }
        let linkSeconds = seconds(since: started)
        FileHandle.standardError.write(Data("seeded \(links) links in \(format(linkSeconds)) s (\(Int(Double(links) / linkSeconds)) links/s)\n".utf8))

        if let slugs {
            let step = max(1, links / max(1, sample))
            let chosen = stride(from: 0, to: links, by: step).prefix(sample).map(benchSlug)
            try (chosen.joined(separator: "\n") + "\n").write(toFile: slugs, atomically: true, encoding: .utf8)
        }

        if clicks > 0 {
            let hashKey = try await store.insertSettingIfAbsent("ip_hash_key", value: Secrets.makeHashKey())
            let hasher = AddressHasher(key: hashKey)
            var random = SplitMix(state: 7)
            let now = Date()
            let clickStarted = ContinuousClock.now
            var index = 0
            while index < clicks {
                let count = min(1000, clicks - index)
                let batch = (index..<index + count).map { i in
                    makeClick(index: i, linkIDs: linkIDs, appID: app.id, time: now.addingTimeInterval(-72_000 * Double(clicks - i) / Double(clicks)),
                              hasher: hasher, random: &random)
                }
                try await store.recordClicks(batch)
                // The interstitial's script reports screen and time zone for most iPhone clicks.
                for click in batch where click.platform == .iOS && random.next() % 3 != 0 {
                    let signals = DeviceSignals(platform: "iOS", osVersion: click.osVersion, screenWidth: 393, screenHeight: 852, screenScale: 3,
                                                timeZone: "Europe/Berlin", timeZoneOffsetSeconds: 3600, languages: ["en-US"])
                    try await store.recordClickSignals(ClickSignalsRecord(clickID: click.id, appID: app.id, signals: signals, receivedAt: click.createdAt))
                }
                index += count
                if index % 100_000 == 0 { FileHandle.standardError.write(Data("  \(index) clicks\n".utf8)) }
            }
            let clickSeconds = seconds(since: clickStarted)
            FileHandle.standardError.write(Data("seeded \(clicks) clicks in \(format(clickSeconds)) s (\(Int(Double(clicks) / clickSeconds)) clicks/s with signals)\n".utf8))
        }
        try await store.close()
        print("FERRY_BENCH_APP=\(app.id)")
        print("FERRY_BENCH_SECRET_KEY=\(secret.key)")
        print("FERRY_BENCH_PUBLISHABLE_KEY=\(publishable.key)")
    }
}

struct Ingest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write clicks straight to the store in the recorder's batches, and print the store's ceiling in clicks/s."
    )
    @Option(help: "sqlite:PATH or postgres://… (seeded by `seed`).") var database: String
    @Option(help: "The seeded app's link domain.") var domain = "bench.test"
    @Option(help: "How many clicks.") var clicks = 200_000
    @Option(help: "Clicks per transaction (the recorder's batch size).") var batch = 5000

    func run() async throws {
        let store = try await DatabaseLocation(parsing: database).open()
        guard let app = try await store.app(forDomain: domain) else { throw ValidationError("no app serves \(domain): run seed first") }
        let page = try await store.listLinks(appID: app.id, environment: .live, limit: 1000, after: nil)
        guard !page.links.isEmpty else { throw ValidationError("the app has no links: run seed first") }
        let hasher = AddressHasher(key: try await store.insertSettingIfAbsent("ip_hash_key", value: Secrets.makeHashKey()))
        var random = SplitMix(state: 11)
        let linkIDs = page.links.map(\.id)
        let base = Int(Date().timeIntervalSince1970)
        // The clicks are made before the clock starts: what is timed is the store alone.
        let clicks = (0..<clicks).map { i in
            makeClick(index: base &* 1_000_003 &+ i, linkIDs: linkIDs, appID: app.id, time: Date(), hasher: hasher, random: &random)
        }
        let started = ContinuousClock.now
        var index = 0
        while index < clicks.count {
            let end = min(clicks.count, index + batch)
            try await store.recordClicks(Array(clicks[index..<end]))
            index = end
        }
        let elapsed = seconds(since: started)
        try await store.close()
        print("store ingestion: \(clicks.count) clicks in \(format(elapsed)) s = \(Int(Double(clicks.count) / elapsed)) clicks/s (batches of \(batch))")
    }
}

struct Append: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hand clicks to the recorder as the edge does and append them to a journal, and print the processor time per click of each."
    )
    @Option(help: "How many clicks.") var clicks = 500_000
    @Option(help: "Clicks taken per append (the edge's rate times the appender's interval of 50 ms).") var batch = 3500
    @Option(help: "The journal's directory (emptied first).") var directory = "/tmp/ferry-bench/append.clicks"

    func run() async throws {
        let url = URL(fileURLWithPath: directory)
        try? FileManager.default.removeItem(at: url)
        let store = try await DatabaseLocation(parsing: "sqlite:" + directory + ".sqlite").open()
        let journal = try ClickJournal(directory: url, maxBytes: 64 << 30, reserveBytes: 0)
        // The recorder is never run: nothing is written to the store, and what is timed is taking and appending.
        let recorder = ClickRecorder(store: store, journal: journal, flushInterval: .seconds(3600), batchSize: 5000,
                                     bufferLimit: 20_000, logger: Logger(label: "bench"), addresses: ClientAddressResolver(trustLoopback: true),
                                     hasher: AddressHasher(key: Secrets.makeHashKey()))
        var random = SplitMix(state: 5)
        let agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
        let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 50_000)
        var handing = Duration.zero, appending = Duration.zero
        var done = 0
        while done < clicks {
            let count = min(batch, clicks - done)
            // As the edge makes them: an id, the link's ids, the request's fields and its origin, the socket's peer and
            // a forwarded address (random, as in Benchmarks/wrk/redirect.lua).
            let made = (0..<count).map { _ in
                var generator = SystemRandomNumberGenerator()
                let click = Click(id: Identifiers.makeTimeOrdered(prefix: "clk", at: Date(), using: &generator), linkID: "lnk_01JBENCHLINK000000000000",
                                  appID: "app_01JBENCHAPP0000000000000", environment: .live, createdAt: Date(), ipHash: nil, networkHash: nil,
                                  userAgent: agent, platform: .desktop, referer: nil, query: nil, acceptLanguage: "en-US,en;q=0.9",
                                  osVersion: nil, appleDevice: nil, traffic: .person)
                let forwarded = "10.\(random.next() % 256).\(random.next() % 256).\(1 + random.next() % 254)"
                return (click, ClickOrigin(socketPeer: peer, forwardedFor: [forwarded]))
            }
            let handed = ContinuousClock.now
            for (click, origin) in made { recorder.record(click, origin: origin) }
            let appended = ContinuousClock.now
            recorder.appendNow()
            appending += ContinuousClock.now - appended
            handing += appended - handed
            done += count
        }
        journal.sync()
        try await store.close()
        let perClick = { (duration: Duration) in format(Double(duration.components.attoseconds / 1_000_000_000 + duration.components.seconds * 1_000_000_000) / Double(clicks)) }
        print("recorder: \(clicks) clicks in appends of \(batch): handing over \(perClick(handing)) ns/click, resolving and appending \(perClick(appending)) ns/click; journal \(journal.bytes / Int64(clicks)) bytes/click")
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let duration = ContinuousClock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ value: Double) -> String { String(format: "%.2f", value) }
#else
/// Elsewhere (SwiftPM builds every target on every platform the package declares) there is nothing to run.
@main
enum FerryBench {
    static func main() { print("FerryBench runs on macOS and Linux") }
}
#endif
