@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// FerryKit's privacy manifest against what FerryKit sends: every call is driven through the injected transport, every
/// field of every request is classified by the table below (a field the table does not know fails the test), and the
/// data types that come out, with their linked flags, must be exactly those `PrivacyInfo.xcprivacy` declares.
@Suite("Privacy manifest: what FerryKit sends is what it declares", .takesTurns)
struct PrivacyManifestTests {
    // MARK: The classification

    /// Apple's data types FerryKit can send (`NSPrivacyCollectedDataType` values).
    enum DataType: String, CaseIterable {
        case userID = "NSPrivacyCollectedDataTypeUserID"
        case deviceID = "NSPrivacyCollectedDataTypeDeviceID"
        case productInteraction = "NSPrivacyCollectedDataTypeProductInteraction"
        case otherDataTypes = "NSPrivacyCollectedDataTypeOtherDataTypes"

        /// Identifiers the server keys what it stores by: data stored with a linked one is linked too.
        var isIdentifier: Bool { self == .userID || self == .deviceID }
    }

    /// What one field of a request is.
    enum Field: Equatable {
        /// Data of `type`; `stored` when the server keeps it beyond answering the request.
        case data(DataType, stored: Bool)
        /// Nothing about the person using the app.
        case notPersonal(String)
    }

    /// Every field FerryKit may send, as `route location.name`: the route (`*` for any), then `header.`, `query.`,
    /// `path.` or `body.` and the name (JSON objects by dots, array elements as `[]`, a free-form dictionary's keys as
    /// `*`). A new field must be added here, and the manifest changed if it brings a new data type.
    static let fields: [String: Field] = [
        // Every request.
        "* header.authorization": .notPersonal("the app's publishable key"),
        "* header.accept": .notPersonal("content type"),
        "* header.content-type": .notPersonal("content type"),
        "* header.User-Agent.sdk": .notPersonal("FerryKit's version"),
        "* header.User-Agent.platform": .data(.otherDataTypes, stored: false),
        "* header.User-Agent.osVersion": .data(.otherDataTypes, stored: false),
        "* header.User-Agent.model": .data(.otherDataTypes, stored: false),
        // POST /v1/attribution/match: the install id, the device's signals, "copy to open".
        "match body.installID": .data(.deviceID, stored: true),
        "match body.installationID": .data(.deviceID, stored: true),
        "match body.signals.platform": .data(.otherDataTypes, stored: false),
        "match body.signals.osVersion": .data(.otherDataTypes, stored: false),
        "match body.signals.model": .data(.otherDataTypes, stored: false),
        "match body.signals.screenWidth": .data(.otherDataTypes, stored: false),
        "match body.signals.screenHeight": .data(.otherDataTypes, stored: false),
        "match body.signals.screenScale": .data(.otherDataTypes, stored: false),
        "match body.signals.timeZone": .data(.otherDataTypes, stored: false),
        "match body.signals.timeZoneOffsetSeconds": .data(.otherDataTypes, stored: false),
        "match body.signals.languages[]": .data(.otherDataTypes, stored: false),
        "match body.clickToken": .data(.productInteraction, stored: true),
        "match body.referrer": .notPersonal("the Play Store referrer, which FerryKit always sends as null"),
        // GET /v1/links/resolve/{slug} and GET /v1/links/resolve?url=: the link that opened the app, and by whom. The
        // install id goes in the query or, on servers that read it there, in a header.
        "resolve path.slug": .data(.productInteraction, stored: true),
        "resolve query.domain": .data(.productInteraction, stored: true),
        "resolve query.installID": .data(.deviceID, stored: true),
        "resolve header.x-ferry-install-id": .data(.deviceID, stored: true),
        "resolveURL query.url": .data(.productInteraction, stored: true),
        "resolveURL query.installID": .data(.deviceID, stored: true),
        "resolveURL header.x-ferry-install-id": .data(.deviceID, stored: true),
        // POST /v1/attribution/user.
        "identify body.installID": .data(.deviceID, stored: true),
        "identify body.userID": .data(.userID, stored: true),
        // POST /v1/events.
        "events body.events[].name": .data(.productInteraction, stored: true),
        "events body.events[].timestamp": .data(.productInteraction, stored: true),
        "events body.events[].installID": .data(.deviceID, stored: true),
        "events body.events[].linkID": .data(.productInteraction, stored: true),
        "events body.events[].properties.*": .data(.productInteraction, stored: true),
        // POST /v1/links: what the person shares, and who shares it.
        "links body.referrer": .data(.userID, stored: true),
        "links body.destination": .data(.productInteraction, stored: true),
        "links body.iosURL": .data(.productInteraction, stored: true),
        "links body.androidURL": .data(.productInteraction, stored: true),
        "links body.domain": .data(.productInteraction, stored: true),
        "links body.params.*": .data(.productInteraction, stored: true),
        "links body.utm.*": .data(.productInteraction, stored: true),
        "links body.campaign": .data(.productInteraction, stored: true),
        "links body.social.*": .data(.productInteraction, stored: true),
        "links body.routing.*": .data(.productInteraction, stored: true),
        "links body.routing.appStoreAnalytics.*": .data(.productInteraction, stored: true),
        "links body.expiresAt": .data(.productInteraction, stored: true),
    ]

    /// The classification of `name` sent on `route`: the route's own entry, else the entry for any route, else the
    /// entry for any key of the field's parent object.
    static func classify(route: String, name: String) -> Field? {
        let parent = name.split(separator: ".").dropLast().joined(separator: ".")
        for key in ["\(route) \(name)", "* \(name)", "\(route) \(parent).*"] {
            if let field = fields[key] { return field }
        }
        return nil
    }

    // MARK: What is sent

    /// One request as the server sees it: its route and the names of the fields it carries.
    struct Sent {
        var route: String
        var names: [String]
    }

    /// The fields of `request`: its headers (lowercased, as HTTP names are read; the `User-Agent` in its parts), query items, the slug in a resolve path,
    /// and every leaf of its JSON body that is not null.
    static func sent(_ request: URLRequest) throws -> Sent {
        let url = try #require(request.url)
        let route = try #require(PrivacyServer.route(of: url.path), "FerryKit asked \(url.path), which the table does not know")
        var names: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if name.lowercased() == "user-agent" { names += userAgentParts(value).map { "header.User-Agent.\($0)" } } else { names.append("header.\(name.lowercased())") }
        }
        names += (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { "query.\($0.name)" }
        if route == "resolve" { names.append("path.slug") }
        if let body = request.httpBody, !body.isEmpty {
            names += leaves(of: try JSONSerialization.jsonObject(with: body), at: "body")
        }
        return Sent(route: route, names: names)
    }

    /// The parts of FerryKit's `User-Agent`: `sdk` (`FerryKit/0.5.0`), then, in parentheses, `platform` and `osVersion`
    /// (`ios 18.1`) and `model` (`iPhone16,1`).
    static func userAgentParts(_ agent: String) -> [String] {
        var parts = ["sdk"]
        guard let open = agent.firstIndex(of: "("), let close = agent.lastIndex(of: ")"), open < close else { return parts }
        let inside = agent[agent.index(after: open)..<close].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        if let system = inside.first {
            let words = system.split(separator: " ")
            if !words.isEmpty { parts.append("platform") }
            if words.count > 1 { parts.append("osVersion") }
        }
        if inside.count > 1 { parts.append("model") }
        return parts
    }

    static func leaves(of value: Any, at path: String) -> [String] {
        switch value {
        case is NSNull: []
        case let object as [String: Any]: object.flatMap { leaves(of: $0.value, at: "\(path).\($0.key)") }
        case let array as [Any]: array.flatMap { leaves(of: $0, at: path + "[]") }
        default: [path]
        }
    }

    /// Every call FerryKit makes, on a first launch: the key check, the deferred deep link with "copy to open", a short
    /// link, a long link and a custom-scheme URL opening the app, identify, the events, a share link with every field.
    static func driveEveryCall(signals: DeviceSignalsPolicy = .all) async throws -> [Sent] {
        let transport = PrivacyServer.make()
        var options = Kit.options(transport: transport)
        options.clickTokenProvider = PrivacyServer.TokenOnThePasteboard()
        options.deviceSignals = signals
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        try await ferry.validateKey()
        _ = try #require(try await ferry.checkDeferredDeepLink())
        _ = try #require(try await ferry.handleDeepLink(URL(string: "https://go.example.com/summer?utm_source=mail")!))
        _ = try #require(try await ferry.handleDeepLink(URL(string: "https://go.example.com/?link=https%3A%2F%2Fexample.com%2Fsale&ibi=com.example.app")!))
        _ = try #require(try await ferry.handleDeepLink(URL(string: "myapp://product/42?coupon=SPRING")!))
        _ = try await ferry.identify(userID: "user_81723")
        try await DeferredDeepLinkTests().waitForPendingEvents(ferry, count: 2)
        await ferry.flushEvents()
        _ = try await ferry.shortLink(for: LinkBuilderTests.full)
        let routes = Set(transport.sent.compactMap { $0.url.flatMap { PrivacyServer.route(of: $0.path) } })
        #expect(routes == ["validate", "match", "resolve", "resolveURL", "identify", "events", "links"], "every call reached the server")
        return try transport.sent.map(sent)
    }

    /// The data types in `requests`, each linked or not: a type is linked when a stored field of it travels with a
    /// stored identifier that is linked (the user id is; the install id is once a request carries both), since the
    /// server keeps them together.
    static func dataTypes(in requests: [Sent]) -> [DataType: Bool] {
        let fields = requests.map { request in request.names.compactMap { classify(route: request.route, name: $0) } }
        var collected: [DataType: Bool] = [:]
        for case .data(let type, stored: _) in fields.joined() { collected[type] = type == .userID }
        var changed = true
        while changed {
            changed = false
            for request in fields {
                let stored = request.compactMap { field -> DataType? in if case .data(let type, stored: true) = field { type } else { nil } }
                guard stored.contains(where: { $0.isIdentifier && collected[$0] == true }) else { continue }
                for type in stored where collected[type] != true {
                    collected[type] = true
                    changed = true
                }
            }
        }
        return collected
    }

    // MARK: The manifest

    static let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: sourceRoot.appendingPathComponent("Sources/FerryKit/PrivacyInfo.xcprivacy"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    static func declaredTypes() throws -> [DataType: Bool] {
        let entries = try #require(try manifest()["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        var declared: [DataType: Bool] = [:]
        for entry in entries {
            let name = try #require(entry["NSPrivacyCollectedDataType"] as? String)
            let type = try #require(DataType(rawValue: name), "\(name) is declared but nothing FerryKit sends is of that type")
            #expect(declared[type] == nil, "\(name) is declared twice")
            declared[type] = try #require(entry["NSPrivacyCollectedDataTypeLinked"] as? Bool)
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false, "\(name) must not be used to track")
            let purposes = try #require(entry["NSPrivacyCollectedDataTypePurposes"] as? [String])
            #expect(Set(purposes) == ["NSPrivacyCollectedDataTypePurposeAppFunctionality", "NSPrivacyCollectedDataTypePurposeAnalytics"])
        }
        return declared
    }

    // MARK: Tests

    @Test func everyFieldSentIsClassified() async throws {
        for request in try await Self.driveEveryCall() {
            for name in request.names {
                #expect(Self.classify(route: request.route, name: name) != nil,
                        "\(request.route) sends \(name), which the table does not classify: add it, and change the manifest if it is a new data type")
            }
        }
    }

    @Test func theManifestDeclaresExactlyTheDataTypesSentAndWhetherEachIsLinked() async throws {
        let sent = Self.dataTypes(in: try await Self.driveEveryCall())
        let declared = try Self.declaredTypes()
        #expect(sent == declared)
        #expect(sent[.userID] == true && sent[.deviceID] == true && sent[.productInteraction] == true)
        #expect(sent[.otherDataTypes] == false, "the device's signals are compared in memory and never stored")
    }

    @Test(arguments: [DeviceSignalsPolicy.minimal, .none])
    func fewerSignalsSendNothingTheManifestDoesNotDeclare(policy: DeviceSignalsPolicy) async throws {
        let requests = try await Self.driveEveryCall(signals: policy)
        for request in requests {
            for name in request.names { #expect(Self.classify(route: request.route, name: name) != nil, "\(request.route) sends \(name)") }
        }
        let sent = Self.dataTypes(in: requests), declared = try Self.declaredTypes()
        for (type, linked) in sent { #expect(declared[type] == linked, "\(type) is sent as \(linked ? "linked" : "not linked")") }
        // With no signal, nothing about the device is sent at all: not in the match, not in the User-Agent.
        #expect((sent[.otherDataTypes] != nil) == (policy == .minimal))
    }

    @Test func theManifestSaysFerryKitDoesNotTrack() throws {
        let manifest = try Self.manifest()
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [String])?.isEmpty == true)
    }

    /// Apple's required-reason APIs by category (Describing use of required reason API), as they appear in Swift source.
    static let requiredReasonAPIs: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "creationDate", "modificationDate", "fileModificationDate", "contentModificationDateKey", "creationDateKey",
            "NSFileCreationDate", "NSFileModificationDate", "getattrlist(", "getattrlistbulk(", "fgetattrlist(", "getattrlistat(",
            "stat(", "fstat(", "fstatat(", "lstat(",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time"],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            "volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey", "volumeAvailableCapacityForOpportunisticUsageKey",
            "volumeTotalCapacityKey", "systemFreeSize", "systemSize", "NSFileSystemFreeSize", "NSFileSystemSize",
            "statfs(", "statvfs(", "fstatfs(", "fstatvfs(",
        ],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults", "NSUserDefaults"],
    ]

    @Test func everyRequiredReasonAPIFerryKitCallsIsDeclaredAndNothingElse() throws {
        let folder = Self.sourceRoot.appendingPathComponent("Sources/FerryKit")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        var used = Set<String>()
        for file in files {
            // Code only: comments may name an API without calling it.
            let code = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n").map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n")
            for (category, symbols) in Self.requiredReasonAPIs where symbols.contains(where: { Self.mentions(code, $0) }) {
                used.insert(category)
            }
        }
        let entries = try #require(try Self.manifest()["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in entries {
            declared[try #require(entry["NSPrivacyAccessedAPIType"] as? String)] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        #expect(Set(declared.keys) == used)
        #expect(declared["NSPrivacyAccessedAPICategoryUserDefaults"] == ["CA92.1"], "FerryKit's own suite, read by the app alone")
    }

    /// Whether `code` names `symbol` as a whole word (a symbol ending in `(` as a call).
    static func mentions(_ code: String, _ symbol: String) -> Bool {
        var rest = code[...]
        while let found = rest.range(of: symbol) {
            let before = found.lowerBound == code.startIndex ? nil : code[code.index(before: found.lowerBound)]
            let after = found.upperBound == code.endIndex ? nil : code[found.upperBound]
            let isWord = { (c: Character?) in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            if !isWord(before), symbol.hasSuffix("(") || !isWord(after) { return true }
            rest = code[found.upperBound...]
        }
        return false
    }
}
