@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A 429 is tried again after the wait its `Retry-After` asks for, when that wait fits; the waits go through the
/// client's injected sleep, so nothing here waits for real.
@Suite("APIClient: Retry-After and deadlines", .takesTurns)
struct RetryAfterTests {
    static let limited = #"{"error":{"code":"rate_limited","message":"too many requests","field":null}}"#

    /// A transport that answers 429 with `Retry-After: seconds` for the first `times` requests, then 200.
    static func limiting(_ seconds: String?, times: Int) -> ScriptedTransport {
        let count = Collector<Int>()
        return ScriptedTransport { _ in
            count.append(1)
            guard count.all.count > times else { return .json(429, limited, headers: seconds.map { ["Retry-After": $0] } ?? [:]) }
            return .encoded(ResolveResponse(link: Kit.linkData()))
        }
    }

    /// The instance's client with the given policy, its waits recorded instead of slept.
    static func client(_ transport: ScriptedTransport, policy: RetryPolicy, waits: Collector<TimeInterval>) throws -> APIClient {
        var options = Kit.options(transport: transport)
        options.retryPolicy = policy
        var client = try Ferry(apiKey: Kit.key, options: options).client
        client.sleep = { seconds in waits.append(seconds) }
        return client
    }

    static let path = FerryRoutes.resolve(slug: "summer")

    @Test func aWaitNoLongerThanThePolicysLongestIsTakenFromTheHeader() async throws {
        let transport = Self.limiting("2", times: 1), waits = Collector<TimeInterval>()
        let client = try Self.client(transport, policy: RetryPolicy(maxAttempts: 3, initialDelay: 0.5, maxDelay: 8), waits: waits)
        let answer = try await client.get(Self.path, as: ResolveResponse.self)
        #expect(answer.link.slug == "summer")
        #expect(waits.all == [2], "the wait is the header's, not the back-off's")
        #expect(transport.sent.count == 2)
    }

    @Test func aLongerWaitFailsAtOnceNamingIt() async throws {
        let transport = Self.limiting("30", times: 1), waits = Collector<TimeInterval>()
        let client = try Self.client(transport, policy: RetryPolicy(maxAttempts: 3, initialDelay: 0.5, maxDelay: 8), waits: waits)
        do {
            _ = try await client.get(Self.path, as: ResolveResponse.self)
            Issue.record("a 429 asking for 30 s was tried again")
        } catch {
            #expect(error.code == .rateLimited && error.httpStatus == 429)
            #expect(error.message.contains("try again in 30 s"), "\(error.message)")
        }
        #expect(waits.all.isEmpty)
        #expect(transport.sent.count == 1)
    }

    @Test(arguments: [nil, "", "soon", "-1", "Wed, 21 Oct 2026 07:28:00 GMT"])
    func aRateLimitWithoutAWaitInSecondsFailsAtOnce(header: String?) async throws {
        let transport = Self.limiting(header, times: 1), waits = Collector<TimeInterval>()
        let client = try Self.client(transport, policy: .default, waits: waits)
        await #expect { try await client.get(Self.path, as: ResolveResponse.self) } throws: { ($0 as? FerryError)?.code == .rateLimited }
        #expect(waits.all.isEmpty && transport.sent.count == 1)
    }

    @Test func theWaitsStopWithTheTriesAndTheLastRateLimitIsThrown() async throws {
        let transport = Self.limiting("1", times: 10), waits = Collector<TimeInterval>()
        let client = try Self.client(transport, policy: RetryPolicy(maxAttempts: 3, initialDelay: 0, maxDelay: 8), waits: waits)
        await #expect { try await client.get(Self.path, as: ResolveResponse.self) } throws: { ($0 as? FerryError)?.code == .rateLimited }
        #expect(waits.all == [1, 1])
        #expect(transport.sent.count == 3)
    }

    @Test func withADeadlineAWaitIsTakenWhenItEndsBeforeIt() async throws {
        let waits = Collector<TimeInterval>()
        // Longer than the policy's longest wait, but within the deadline: a deadline replaces that budget.
        let fits = Self.limiting("20", times: 1)
        let client = try Self.client(fits, policy: RetryPolicy(maxAttempts: 3, initialDelay: 0, maxDelay: 1), waits: waits)
        #expect(try await client.get(Self.path, deadline: Deadline(in: 600), as: ResolveResponse.self).link.slug == "summer")
        #expect(waits.all == [20] && fits.sent.count == 2)

        let tooLong = Self.limiting("20", times: 1)
        let other = try Self.client(tooLong, policy: RetryPolicy(maxAttempts: 3, initialDelay: 0, maxDelay: 60), waits: waits)
        do {
            _ = try await other.get(Self.path, deadline: Deadline(in: 5), as: ResolveResponse.self)
            Issue.record("a wait past the deadline was taken")
        } catch {
            #expect(error.code == .rateLimited && error.message.contains("try again in 20 s"), "\(error.message)")
        }
        #expect(waits.all == [20], "no second wait")
        #expect(tooLong.sent.count == 1)
    }

    @Test func withADeadlineABackOffThatWouldPassItEndsTheTries() async throws {
        let transport = ScriptedTransport { _ in .json(503, "{}") }, waits = Collector<TimeInterval>()
        let client = try Self.client(transport, policy: RetryPolicy(maxAttempts: 3, initialDelay: 10, maxDelay: 10), waits: waits)
        await #expect { try await client.get(Self.path, deadline: Deadline(in: 5), as: ResolveResponse.self) } throws: {
            ($0 as? FerryError)?.code == .server
        }
        #expect(waits.all.isEmpty && transport.sent.count == 1)
    }
}
