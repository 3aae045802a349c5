#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
@testable import FerryServer
import FerryTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@Suite("Log format", .takesTurns)
struct LogFormatTests {
    /// A JSON handler writing into memory.
    static func handler() -> (JSONLogHandler, @Sendable () -> [String]) {
        let written = Mutex<[String]>([])
        let output = JSONLogOutput { data in written.withLock { $0.append(String(decoding: data, as: UTF8.self)) } }
        return (JSONLogHandler(label: "ferry", output: output), { written.withLock { $0 } })
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func eachLineIsOneObjectWithTheFixedFieldsFirst() throws {
        let (handler, lines) = Self.handler()
        var logger = Logger(label: "ferry") { _ in handler }
        logger.logLevel = .debug
        logger.warning("database away", metadata: ["path": "/v1/links", "attempt": "3", "nested": ["a": "1"], "list": ["x", "y"]])
        logger.info("quote \" backslash \\ newline \n tab \t bell \u{7} line separator \u{2028} done")
        let written = lines()
        #expect(written.count == 2 && written.allSatisfy { $0.hasSuffix("}\n") && $0.dropLast().allSatisfy { $0 != "\n" } })
        #expect(written[0].hasPrefix(#"{"time":""#))
        let first = try Self.object(written[0])
        #expect(first["level"] as? String == "warning" && first["message"] as? String == "database away" && first["logger"] as? String == "ferry")
        #expect(first["path"] as? String == "/v1/links" && first["attempt"] as? String == "3")
        #expect((first["nested"] as? [String: String]) == ["a": "1"] && (first["list"] as? [String]) == ["x", "y"])
        let time = try #require(first["time"] as? String)
        #expect(time.hasSuffix("Z") && time.contains("."), "RFC 3339 in UTC with milliseconds: \(time)")
        let second = try Self.object(written[1])
        #expect(second["message"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} line separator \u{2028} done")
    }

    @Test func keysSecretsUsersAndFullAddressesNeverReachTheLine() throws {
        let (handler, lines) = Self.handler()
        let logger = Logger(label: "ferry") { _ in handler }
        let key = "fs_live_" + String(repeating: "Ab3", count: 10) + "Zz"
        let publishable = "fk_test_" + String(repeating: "q9", count: 16)
        logger.error("refused \(key) and \(publishable) and whsec_abcdef0123456789", metadata: [
            "key": "\(key)", "api_key": "x", "authorization": "Bearer \(key)", "password": "hunter2-hunter2", "userID": "user-42",
            "email": "ana@example.com", "client": "203.0.113.77", "address": "2001:db8:1:2:3:4:5:6", "ip": "not an address",
            "detail": "the key \(key) again",
        ])
        let line = try #require(lines().first)
        for leaked in [key, publishable, "whsec_abcdef0123456789", "hunter2", "user-42", "ana@example.com", "203.0.113.77", "3:4:5:6", "not an address"] {
            #expect(!line.contains(leaked), "\(leaked) in \(line)")
        }
        let object = try Self.object(line)
        #expect(object["key"] == nil && object["api_key"] == nil && object["authorization"] == nil && object["password"] == nil)
        #expect(object["userID"] == nil && object["email"] == nil)
        #expect(object["client"] as? String == "203.0.113.0/24" && object["address"] as? String == "2001:db8:1:2::/64")
        #expect(object["ip"] as? String == "[withheld]")
        #expect((object["message"] as? String)?.contains("fs_live_…[withheld]") == true)
        #expect((object["detail"] as? String)?.hasPrefix("the key fs_live_…[withheld]") == true)
    }

    @Test func theRequestScopeAddsItsIdAndAppToEveryLoggerInItsTask() throws {
        let (handler, lines) = Self.handler()
        var handlerWithScope = handler
        handlerWithScope.metadataProvider = RequestLogScope.metadataProvider
        let logger = Logger(label: "ferry") { _ in handlerWithScope }
        logger.info("outside")
        RequestLogScope.$current.withValue(RequestLogScope(id: "req-7")) {
            logger.info("before the key")
            RequestLogScope.noteApp("app_123")
            logger.info("after the key")
        }
        let written = try lines().map(Self.object)
        #expect(written[0]["request_id"] == nil && written[0]["app_id"] == nil)
        #expect(written[1]["request_id"] as? String == "req-7" && written[1]["app_id"] == nil)
        #expect(written[2]["request_id"] as? String == "req-7" && written[2]["app_id"] as? String == "app_123")
    }

    @Test func theEnvironmentChoosesTheFormat() throws {
        var configuration = FerryConfiguration()
        #expect(configuration.logFormat == .text)
        try configuration.apply(environment: ["FERRY_LOG_FORMAT": "JSON"])
        #expect(configuration.logFormat == .json)
        var other = FerryConfiguration()
        #expect(throws: ConfigurationError.self) { try other.apply(environment: ["FERRY_LOG_FORMAT": "logfmt"]) }
    }
}
#endif
