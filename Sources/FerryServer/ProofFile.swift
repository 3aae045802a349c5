#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import NIOCore

/// A domain's proof file as its web server answered for it: the status and the start of the body.
struct ProofFile: Sendable, Equatable {
    /// The most bytes of a proof file's body read; a longer body is cut there.
    static let maxBodyBytes = 4 * 1024

    var status: Int
    /// The start of the body: all of it, or its first ``maxBodyBytes``.
    var body: [UInt8]
    /// Whether `body` is the whole body.
    var complete: Bool

    /// The body's lines that count: every line of a whole body; of a body cut short, the lines before its last line
    /// break (the line it was cut in may go on with anything).
    var lines: [Substring] {
        var bytes = body[...]
        if !complete { bytes = bytes[..<(bytes.lastIndex(of: UInt8(ascii: "\n")) ?? bytes.startIndex)] }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
    }

    /// Why the file does not prove `proof`, or nil when it does: only a 200 whose body has a line that is `proof`
    /// (spaces around it aside) proves it.
    func finding(for proof: String) -> String? {
        switch status {
        case 200:
            if lines.contains(where: { $0.trimmingCharacters(in: .whitespaces) == proof }) { return nil }
            return complete ? "has no line \(proof)" : "has no line \(proof) in its first \(Self.maxBodyBytes) bytes"
        case 300..<400:
            return "answered \(status), a redirect, which is not followed: the file must be served at this address"
        default:
            return "answered \(status)"
        }
    }
}

extension WebhookClient {
    /// Where proof files are not read from when internal destinations are not allowed: a host that resolves to an
    /// address that is not public. (A claimed domain is never `localhost`; every host is judged by its addresses.)
    static let proofFileDestinations = DestinationRules(url: { _ in nil }, addresses: { addresses in
        addresses.first { !$0.isPublic }.map { "\($0) is not a public address; proof files are read only from public addresses" }
    })

    /// Reads the proof file at `url`: its status and at most ``ProofFile/maxBodyBytes`` of its body. A redirect is
    /// not followed.
    func readProofFile(_ url: String) async throws(WebhookAttemptFailure) -> ProofFile {
        let answer = try await get(url: url, headers: [("User-Agent", "Ferry-Verification/1")], keepBodyBytes: ProofFile.maxBodyBytes,
                                   rules: Self.proofFileDestinations)
        return ProofFile(status: answer.status, body: Array(buffer: answer.body), complete: answer.complete)
    }
}
#endif
