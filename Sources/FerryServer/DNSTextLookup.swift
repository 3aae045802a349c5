#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation
import NIOCore
import NIOPosix

/// Asks a DNS server for a name's TXT records over UDP (RFC 1035): what proves that whoever adds a link domain
/// controls it. The system's resolver library has no portable call for TXT records, so the question is asked
/// directly, of the first `nameserver` in `/etc/resolv.conf` unless a server is named (`FERRY_DNS_SERVER`).
struct DNSTextLookup: Sendable {
    /// The server asked.
    let server: SocketAddress
    /// How long one attempt waits for the answer; a second attempt follows a first without one.
    let timeout: Duration

    init(server: SocketAddress, timeout: Duration = .seconds(3)) {
        self.server = server
        self.timeout = timeout
    }

    /// The server a setting names (`host` or `host:port`, `[v6]:port`), or, without one, the system's first
    /// nameserver (`/etc/resolv.conf`), or 127.0.0.1.
    static func server(named setting: String?) throws -> SocketAddress {
        if let setting, !setting.isEmpty {
            var host = setting, port = 53
            if setting.hasPrefix("["), let end = setting.firstIndex(of: "]") {
                host = String(setting[setting.index(after: setting.startIndex)..<end])
                let rest = setting[setting.index(after: end)...]
                if rest.hasPrefix(":") { guard let number = Int(rest.dropFirst()) else { throw ConfigurationError("FERRY_DNS_SERVER has an invalid port") }; port = number }
            } else if setting.filter({ $0 == ":" }).count == 1, let colon = setting.firstIndex(of: ":") {
                host = String(setting[..<colon])
                guard let number = Int(setting[setting.index(after: colon)...]) else { throw ConfigurationError("FERRY_DNS_SERVER has an invalid port") }
                port = number
            }
            guard (1...65535).contains(port), let address = try? SocketAddress(ipAddress: host, port: port) else {
                throw ConfigurationError("FERRY_DNS_SERVER must be an IP address with an optional port, such as 9.9.9.9 or 127.0.0.1:5353")
            }
            return address
        }
        let text = (try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? ""
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: \.isWhitespace)
            if words.count >= 2, words[0] == "nameserver", let address = try? SocketAddress(ipAddress: String(words[1]), port: 53) {
                return address
            }
        }
        return try SocketAddress(ipAddress: "127.0.0.1", port: 53)
    }

    /// What went wrong asking.
    struct LookupError: Error, CustomStringConvertible {
        var description: String
        /// The server said nothing in time (the question or its answer may have been lost: UDP).
        var unanswered = false

        static let silence = LookupError(description: "no answer from the DNS server", unanswered: true)
    }

    /// The TXT records of a name (each record's strings joined, as the record's value); empty when the name has none
    /// or does not exist. A question left unanswered is asked once more.
    func textRecords(of name: String) async throws -> [String] {
        do {
            return try await ask(name)
        } catch let error as LookupError where error.unanswered {
            return try await ask(name)
        }
    }

    private func ask(_ name: String) async throws -> [String] {
        var generator = SystemRandomNumberGenerator()
        let id = UInt16.random(in: 0...UInt16.max, using: &generator)
        let query = try DNSMessage.query(id: id, name: name, type: DNSMessage.txt)
        let server = server
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: server.protocol == .inet6 ? "::" : "0.0.0.0", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
        return try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(AddressedEnvelope(remoteAddress: server, data: ByteBuffer(bytes: query)))
                    for try await envelope in inbound where envelope.remoteAddress == server {
                        // An answer to another question, or not an answer at all, is not this one's.
                        if let records = try DNSMessage.textRecords(in: Array(envelope.data.readableBytesView), id: id) { return records }
                    }
                    return nil
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let records = first else {
                try? await channel.channel.close()
                throw LookupError.silence
            }
            return records
        }
    }
}

/// DNS messages (RFC 1035): a question, and the TXT records of an answer.
enum DNSMessage {
    static let txt: UInt16 = 16

    /// A recursive query for one name, with an EDNS(0) record offering 1232-byte answers (RFC 6891).
    static func query(id: UInt16, name: String, type: UInt16) throws -> [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        u16(id)
        u16(0x0100)  // recursion desired
        u16(1); u16(0); u16(0); u16(1)
        for label in name.split(separator: ".") {
            guard (1...63).contains(label.utf8.count) else { throw DNSTextLookup.LookupError(description: "'\(name)' is not a domain name") }
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        bytes.append(0)
        u16(type); u16(1)
        // OPT: root name, type 41, payload size as class, no extended flags, no options.
        bytes.append(0)
        u16(41); u16(1232); u16(0); u16(0); u16(0)
        return bytes
    }

    /// The TXT records of an answer to query `id`; nil when the message is not that answer. Throws when the server
    /// answered with an error other than "no such name".
    static func textRecords(in message: [UInt8], id: UInt16) throws -> [String]? {
        var reader = Reader(bytes: message)
        guard let answerID = reader.u16(), answerID == id, let flags = reader.u16(), flags & 0x8000 != 0,
              let questions = reader.u16(), let answers = reader.u16(), reader.u16() != nil, reader.u16() != nil
        else { return nil }
        switch flags & 0x000F {
        case 0: break
        case 3: return []  // no such name
        case let code: throw DNSTextLookup.LookupError(description: "the DNS server answered with error \(code)")
        }
        if flags & 0x0200 != 0 { throw DNSTextLookup.LookupError(description: "the DNS answer was too large for one datagram") }
        for _ in 0..<questions {
            guard reader.skipName(), reader.skip(4) else { return nil }
        }
        var records: [String] = []
        for _ in 0..<answers {
            guard reader.skipName(), let type = reader.u16(), reader.skip(6), let length = reader.u16(),
                  let slice = reader.take(Int(length))
            else { return nil }
            let data = Array(slice)
            guard type == txt else { continue }  // a CNAME on the way
            var value: [UInt8] = []
            var index = 0
            while index < data.count {
                let count = Int(data[index])
                guard index + 1 + count <= data.count else { return nil }
                value += data[(index + 1)..<(index + 1 + count)]
                index += 1 + count
            }
            records.append(String(decoding: value, as: UTF8.self))
        }
        return records
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, position + count <= bytes.count else { return nil }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }

        mutating func u16() -> UInt16? {
            guard let pair = take(2) else { return nil }
            return UInt16(pair[pair.startIndex]) << 8 | UInt16(pair[pair.startIndex + 1])
        }

        /// Skips a name: labels up to the root, or up to a compression pointer.
        mutating func skipName() -> Bool {
            while let length = take(1)?.first {
                if length == 0 { return true }
                if length & 0xC0 == 0xC0 { return skip(1) }
                guard length & 0xC0 == 0, skip(Int(length)) else { return false }
            }
            return false
        }
    }
}
#endif
