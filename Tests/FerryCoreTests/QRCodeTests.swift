import Foundation
import Testing

/// Runs blocking work (waiting for a child process) on a thread of its own, so that tests running meanwhile keep
/// the few threads Swift's concurrency runs on (two on a two-core machine).
func onItsOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
@testable import FerryCore
import FerryTestSupport
#if canImport(FoundationXML)
import FoundationXML
#endif

#if os(macOS) || os(Linux)  // runs zbar through ChildProcess
/// Runs the real decoder, zbar (`apt-get install zbar-tools`), on PNGs we make.
private enum Zbar {
    static let path = "/usr/bin/zbarimg"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The text zbar reads from `png`, or nil when it finds no symbol.
    /// zbar prints byte-mode data as UTF-8 when the bytes are valid UTF-8, which is all these tests use.
    static func decode(_ png: [UInt8]) async throws -> String? {
        try await onItsOwnThread { try decodeWaiting(png) }
    }

    /// Waits for zbar: on a thread of its own (see `onItsOwnThread`).
    static func decodeWaiting(_ png: [UInt8]) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-test-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess(executable: path, arguments: ["--raw", "-q", file.path], standardError: .discard)
        let data = child.collect().stdout // before waiting, so a full pipe cannot block
        guard child.wait() == 0, var text = String(data: data, encoding: .utf8) else { return nil }
        if text.hasSuffix("\n") { text.removeLast() } // --raw ends each symbol with a newline
        return text
    }

    /// Decodes at four pixels per module with the standard quiet zone.
    static func decode(_ code: QRCode) async throws -> String? {
        try await decode(code.png(pixels: (code.size + 8) * 4))
    }
}
#endif

/// Values from ISO/IEC 18004, typed in independently of the encoder's own tables.
private enum Standard {
    /// Byte-mode capacity (Table 7) by version 1...40: L, M, Q, H.
    static let byteCapacity: [[Int]] = [
        [17, 14, 11, 7], [32, 26, 20, 14], [53, 42, 32, 24], [78, 62, 46, 34], [106, 84, 60, 44],
        [134, 106, 74, 58], [154, 122, 86, 64], [192, 152, 108, 84], [230, 180, 130, 98], [271, 213, 151, 119],
        [321, 251, 177, 137], [367, 287, 203, 155], [425, 331, 241, 177], [458, 362, 258, 194], [520, 412, 292, 220],
        [586, 450, 322, 250], [644, 504, 364, 280], [718, 560, 394, 310], [792, 624, 442, 338], [858, 666, 482, 382],
        [929, 711, 509, 403], [1003, 779, 565, 439], [1091, 857, 611, 461], [1171, 911, 661, 511], [1273, 997, 715, 535],
        [1367, 1059, 751, 593], [1465, 1125, 805, 625], [1528, 1190, 868, 658], [1628, 1264, 908, 698], [1732, 1370, 982, 742],
        [1840, 1452, 1030, 790], [1952, 1538, 1112, 842], [2068, 1628, 1168, 898], [2188, 1722, 1228, 958], [2303, 1809, 1283, 983],
        [2431, 1911, 1351, 1051], [2563, 1989, 1423, 1093], [2699, 2099, 1499, 1139], [2809, 2213, 1579, 1219], [2953, 2331, 1663, 1273],
    ]

    static func byteCapacity(version: Int, level: QRCode.ErrorCorrection) -> Int {
        byteCapacity[version - 1][QRCode.ErrorCorrection.allCases.firstIndex(of: level)!]
    }

    /// Alignment pattern row/column centres (Annex E) by version 1...40.
    static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106], [6, 32, 58, 84, 110],
        [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134],
        [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
    ]

    /// Format information after masking (Annex C), by level L, M, Q, H then mask 0...7.
    static let formatInformation: [[Int]] = [
        [0x77C4, 0x72F3, 0x7DAA, 0x789D, 0x662F, 0x6318, 0x6C41, 0x6976],
        [0x5412, 0x5125, 0x5E7C, 0x5B4B, 0x45F9, 0x40CE, 0x4F97, 0x4AA0],
        [0x355F, 0x3068, 0x3F31, 0x3A06, 0x24B4, 0x2183, 0x2EDA, 0x2BED],
        [0x1689, 0x13BE, 0x1CE7, 0x19D0, 0x0762, 0x0255, 0x0D0C, 0x083B],
    ]

    /// Remainder of `value` divided by `generator` over GF(2), by long division bit by bit.
    static func polynomialRemainder(_ value: Int, _ generator: Int) -> Int {
        let degree = Int.bitWidth - 1 - generator.leadingZeroBitCount
        var value = value
        for bit in stride(from: Int.bitWidth - 1, through: degree, by: -1) where value & (1 << bit) != 0 {
            value ^= generator << (bit - degree)
        }
        return value
    }

    /// Version information for `version` ≥ 7: 6 data bits then BCH(18,6) with g(x) = 0x1F25.
    static func versionInformation(_ version: Int) -> Int {
        version << 12 | polynomialRemainder(version << 12, 0x1F25)
    }
}

/// Deterministic test input of `count` bytes that needs byte mode (starts with a lowercase letter).
private func sampleText(_ count: Int, seed: UInt32 = 1) -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?=&%+")
    var state = seed
    var text = ""
    for index in 0..<count {
        state = state &* 1_103_515_245 &+ 12345
        text.append(index == 0 ? "h" : alphabet[Int(state >> 16) % alphabet.count])
    }
    return text
}

/// The modules of `code` as a grid, for checks that read patterns.
private func module(_ code: QRCode, _ x: Int, _ y: Int) -> Bool { code.isDark(x: x, y: y) }

// MARK: - Decoding with zbar

#if os(macOS) || os(Linux)  // runs zbar through ChildProcess
@Suite("QRCode decoding with zbar", .takesTurns)
struct QRCodeDecodingTests {
    @Test("zbar is installed in CI")
    func zbarRequiredInCI() {
        if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty {
            #expect(Zbar.isAvailable, "zbarimg is missing at \(Zbar.path): install zbar-tools")
        }
    }

    @Test(.enabled(if: Zbar.isAvailable))
    func shortURL() async throws {
        let text = "https://go.example.com/summer-sale"
        let code = try QRCode(text: text)
        #expect(code.version == 3)
        #expect(code.errorCorrection == .medium)
        #expect(try await Zbar.decode(code) == text)
        #expect(try await Zbar.decode(code.png(pixels: 1000, quietZone: 4)) == text)
    }

    @Test(.enabled(if: Zbar.isAvailable), arguments: QRCode.ErrorCorrection.allCases)
    func everyLevel(level: QRCode.ErrorCorrection) async throws {
        let text = "https://go.example.com/summer-sale?utm_source=newsletter&utm_medium=email"
        let code = try QRCode(text: text, errorCorrection: level)
        #expect(code.errorCorrection == level)
        #expect(try await Zbar.decode(code) == text)
    }

    /// One byte more than version − 1 holds, so exactly `version` is needed.
    @Test(.enabled(if: Zbar.isAvailable), arguments: [
        (7, QRCode.ErrorCorrection.medium), (10, .low), (10, .high), (20, .quartile), (20, .medium), (40, .low), (40, .high),
    ])
    func highVersions(version: Int, level: QRCode.ErrorCorrection) async throws {
        let text = sampleText(Standard.byteCapacity(version: version - 1, level: level) + 1, seed: UInt32(version))
        let code = try QRCode(text: text, errorCorrection: level)
        #expect(code.version == version)
        #expect(code.size == 17 + 4 * version)
        #expect(try await Zbar.decode(code) == text)
    }

    /// Every version at every level, filled to capacity: checks each entry of the block table, the
    /// interleaving of short and long blocks, alignment positions and version information.
    @Test(.enabled(if: Zbar.isAvailable), arguments: QRCode.ErrorCorrection.allCases)
    func everyVersionFull(level: QRCode.ErrorCorrection) async throws {
        for version in 1...40 {
            let text = sampleText(Standard.byteCapacity(version: version, level: level), seed: UInt32(version * 7))
            let code = try QRCode(text: text, errorCorrection: level)
            #expect(code.version == version, "level \(level.rawValue) version \(version)")
            #expect(try await Zbar.decode(code.png(pixels: (code.size + 8) * 2)) == text, "level \(level.rawValue) version \(version)")
        }
    }

    @Test(.enabled(if: Zbar.isAvailable), arguments: [
        "https://例え.jp/ünïcödé?q=✓",
        "Grüße aus Köln — 😀 🚀",
        "日本語のテキスト、漢字とかな",
        "Ελληνικά και Кириллица",
    ])
    func utf8(text: String) async throws {
        let code = try QRCode(text: text, errorCorrection: .quartile)
        #expect(try await Zbar.decode(code) == text)
    }

    @Test(.enabled(if: Zbar.isAvailable), arguments: QRCode.ErrorCorrection.allCases)
    func maximumCapacity(level: QRCode.ErrorCorrection) async throws {
        let maximum = Standard.byteCapacity(version: 40, level: level)
        let text = sampleText(maximum, seed: 99)
        let code = try QRCode(text: text, errorCorrection: level)
        #expect(code.version == 40)
        #expect(try await Zbar.decode(code) == text)

        #expect(throws: QRCodeError.self) { try QRCode(text: text + "x", errorCorrection: level) }
        do {
            _ = try QRCode(bytes: Array((text + "x").utf8), errorCorrection: level)
            Issue.record("one byte over capacity was accepted")
        } catch {
            #expect(error.maxLength == maximum)
            #expect(error.length == maximum + 1)
            #expect(error.errorCorrection == level)
            #expect(error.description == "text is too long for a QR code at level \(level.rawValue) (max \(maximum) bytes)")
        }
    }

    @Test(.enabled(if: Zbar.isAvailable))
    func numericAndAlphanumericModes() async throws {
        let digits = String(repeating: "0123456789", count: 30)
        let numeric = try QRCode(text: digits)
        #expect(numeric.version < (try QRCode(text: "x" + digits)).version)
        #expect(try await Zbar.decode(numeric) == digits)

        for text in ["1", "12", "123", "1234"] { #expect(try await Zbar.decode(QRCode(text: text)) == text) }

        let upper = "HTTPS://GO.EXAMPLE.COM/SUMMER-SALE $5 OFF +10% *NOW*"
        let alphanumeric = try QRCode(text: upper)
        #expect(alphanumeric.version < (try QRCode(text: upper.lowercased())).version)
        #expect(try await Zbar.decode(alphanumeric) == upper)
        #expect(try await Zbar.decode(QRCode(text: "AB1")) == "AB1")

        // The standard's limits for these modes at version 40-L.
        let allDigits = String(repeating: "7", count: 7089)
        #expect(try QRCode(text: allDigits, errorCorrection: .low).version == 40)
        #expect(try await Zbar.decode(QRCode(text: allDigits, errorCorrection: .low)) == allDigits)
        #expect(throws: QRCodeError.self) { try QRCode(text: allDigits + "7", errorCorrection: .low) }
        #expect(try QRCode(text: String(repeating: "A", count: 4296), errorCorrection: .low).version == 40)
        #expect(throws: QRCodeError.self) { try QRCode(text: String(repeating: "A", count: 4297), errorCorrection: .low) }
    }
    // zbar needs about two pixels per module: the one-pixel-per-module PNGs that a too-small `pixels`
    // gives are checked pixel by pixel in QRCodeRenderingTests instead.
}
#endif

// MARK: - Structure

@Suite("QRCode structure", .takesTurns)
struct QRCodeStructureTests {
    /// One code per version in `versions` at `level`, each from the smallest input that needs that version.
    static func codes(level: QRCode.ErrorCorrection = .low, versions: some Sequence<Int> = 1...40) throws -> [QRCode] {
        try versions.map { version in
            let length = version == 1 ? 1 : Standard.byteCapacity(version: version - 1, level: level) + 1
            return try QRCode(text: sampleText(length, seed: UInt32(version)), errorCorrection: level)
        }
    }

    /// Versions 1...40 at level L, made once for the tests that read patterns.
    static let everyVersion: [QRCode] = (try? codes()) ?? []

    @Test func capacityMatchesTheStandard() {
        for version in 1...40 {
            for level in QRCode.ErrorCorrection.allCases {
                #expect(
                    QRCode.capacity(mode: .byte, version: version, level: level) == Standard.byteCapacity(version: version, level: level),
                    "version \(version) level \(level.rawValue)"
                )
            }
        }
        #expect(QRCode.totalCodewordCount(version: 1) == 26)
        #expect(QRCode.totalCodewordCount(version: 7) == 196)
        #expect(QRCode.totalCodewordCount(version: 40) == 3706)
    }

    @Test func sizeFinderTimingAndDarkModule() throws {
        #expect(Self.everyVersion.map(\.version) == Array(1...40))
        for code in Self.everyVersion {
            let size = code.size
            #expect(size == 17 + 4 * code.version)
            #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: size, y: 0) && !code.isDark(x: 0, y: size))
            for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
                for dy in 0..<7 {
                    for dx in 0..<7 {
                        let ring = max(abs(dx - 3), abs(dy - 3))
                        #expect(module(code, left + dx, top + dy) == (ring != 2), "finder at \(left),\(top) v\(code.version)")
                    }
                }
                // Separators: the light border just inside the symbol.
                for i in -1...7 {
                    let sx = left == 0 ? 7 : left - 1, sy = top == 0 ? 7 : top - 1
                    if (0..<size).contains(top + i) { #expect(!module(code, sx, top + i)) }
                    if (0..<size).contains(left + i) { #expect(!module(code, left + i, sy)) }
                }
            }
            for i in 8..<size - 8 {
                #expect(module(code, i, 6) == (i % 2 == 0))
                #expect(module(code, 6, i) == (i % 2 == 0))
            }
            #expect(module(code, 8, size - 8))
        }
    }

    @Test func alignmentPatterns() throws {
        #expect(Self.everyVersion.count == 40)
        for code in Self.everyVersion {
            let centres = Standard.alignmentCentres[code.version - 1]
            #expect(QRCode.alignmentCentres(version: code.version) == centres)
            for cy in centres {
                for cx in centres {
                    let nearFinder = (cx < 10 && cy < 10) || (cx > code.size - 10 && cy < 10) || (cx < 10 && cy > code.size - 10)
                    if nearFinder { continue }
                    for dy in -2...2 {
                        for dx in -2...2 {
                            #expect(module(code, cx + dx, cy + dy) == (max(abs(dx), abs(dy)) != 1), "v\(code.version) at \(cx),\(cy)")
                        }
                    }
                }
            }
        }
    }

    @Test func formatInformationBothCopies() throws {
        // The encoder's BCH agrees with the standard's table and with long division.
        for (row, level) in QRCode.ErrorCorrection.allCases.enumerated() {
            for mask in 0..<8 {
                let expected = Standard.formatInformation[row][mask]
                #expect(QRCode.formatBits(level: level, mask: mask) == expected)
                let unmasked = expected ^ 0x5412
                #expect(Standard.polynomialRemainder(unmasked, 0x537) == 0)
                let levelBits = ["L": 1, "M": 0, "Q": 3, "H": 2][level.rawValue]!
                #expect(unmasked >> 10 == levelBits << 3 | mask)
            }
        }
        for level in QRCode.ErrorCorrection.allCases {
            for code in try Self.codes(level: level, versions: stride(from: level == .low ? 1 : 2, through: 40, by: 3)) {
                let size = code.size
                // Copy 1 around the top-left finder, copy 2 split between the other two; bit 0 first.
                let first: [(Int, Int)] = (0..<6).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
                let second: [(Int, Int)] = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
                func read(_ positions: [(Int, Int)]) -> Int {
                    positions.enumerated().reduce(0) { $0 | (module(code, $1.element.0, $1.element.1) ? 1 << $1.offset : 0) }
                }
                let row = QRCode.ErrorCorrection.allCases.firstIndex(of: level)!
                #expect(code.version % 3 == (level == .low ? 1 : 2))
                #expect(read(first) == read(second))
                #expect(read(first) == Standard.formatInformation[row][code.mask], "v\(code.version) \(level.rawValue)")
                #expect((0..<8).contains(code.mask))
            }
        }
    }

    @Test func versionInformation() throws {
        #expect(Standard.versionInformation(7) == 0x07C94)
        #expect(Standard.versionInformation(40) == 0x28C69)
        #expect(Self.everyVersion.count == 40)
        for code in Self.everyVersion {
            let size = code.size
            var bottomLeft = 0, topRight = 0
            for i in 0..<18 {
                if module(code, i / 3, size - 11 + i % 3) { bottomLeft |= 1 << i }
                if module(code, size - 11 + i % 3, i / 3) { topRight |= 1 << i }
            }
            if code.version >= 7 {
                #expect(bottomLeft == Standard.versionInformation(code.version), "v\(code.version)")
                #expect(topRight == bottomLeft)
                #expect(QRCode.versionBits(code.version) == Standard.versionInformation(code.version))
            }
        }
    }

    @Test func reedSolomonKnownBlock() {
        // ISO/IEC 18004 Annex I: "01234567" as 1-M.
        let data = QRCode.dataCodewords(Array("01234567".utf8), mode: .numeric, version: 1, level: .medium)
        #expect(data == [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        let ec = QRCode.ReedSolomon.remainder(data[...], generator: QRCode.ReedSolomon.generator(degree: 10))
        #expect(ec == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    /// Every block with its error correction is a codeword: it evaluates to zero at α⁰…α^(n−1).
    @Test(arguments: [2, 7, 10, 13, 16, 17, 18, 20, 22, 24, 26, 28, 30])
    func reedSolomonSyndromesAreZero(degree: Int) {
        func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 { // shift-and-add, no tables
            var a = a, b = b, product: UInt8 = 0
            while b != 0 {
                if b & 1 == 1 { product ^= a }
                a = (a << 1) ^ (a & 0x80 != 0 ? 0x1D : 0)
                b >>= 1
            }
            return product
        }
        let data = (0..<(degree * 3 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ degree &* 31) }
        let codeword = data + QRCode.ReedSolomon.remainder(data[...], generator: QRCode.ReedSolomon.generator(degree: degree))
        var root: UInt8 = 1
        for _ in 0..<degree {
            let value = codeword.reduce(UInt8(0)) { multiply($0, root) ^ $1 }
            #expect(value == 0)
            root = multiply(root, 2)
        }
    }

    /// The four penalty rules written the plain way, module by module, as a reference for the encoder's
    /// bit-parallel scoring. Modules outside the symbol count as light for the 1:1:3:1:1 rule.
    static func referencePenalty(_ grid: [Bool], size: Int) -> Int {
        func at(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < size && y < size && grid[y * size + x] }
        var score = 0
        let finderLike: [Bool] = [true, false, true, true, true, false, true]
        for transposed in [false, true] {
            func module(_ line: Int, _ position: Int) -> Bool { transposed ? at(line, position) : at(position, line) }
            for line in 0..<size {
                var position = 0
                while position < size {
                    var end = position
                    while end < size, module(line, end) == module(line, position) { end += 1 }
                    if end - position >= 5 { score += 3 + (end - position - 5) }
                    position = end
                }
                for start in -4..<size {
                    guard (0..<7).allSatisfy({ module(line, start + $0) == finderLike[$0] }) else { continue }
                    if (1...4).allSatisfy({ !module(line, start - $0) }) { score += 40 }
                    if (7..<11).allSatisfy({ !module(line, start + $0) }) { score += 40 }
                }
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 where Set([at(x, y), at(x + 1, y), at(x, y + 1), at(x + 1, y + 1)]).count == 1 { score += 3 }
        }
        let dark = grid.filter { $0 }.count
        let percent = Double(dark) * 100 / Double(size * size)
        score += 10 * Int((abs(percent - 50) / 5).rounded(.down))
        return score
    }

    @Test func penaltyRules() {
        let scorers: [([Bool], Int) -> Int] = [{ QRCode.penalty($0, size: $1) }, { Self.referencePenalty($0, size: $1) }]
        for penalty in scorers {
            // 5×5 all light: rule 1, 10 runs of 5 (3 each) = 30; rule 2, 16 blocks = 48; rule 4, 0% dark = 100.
            #expect(penalty(Array(repeating: false, count: 25), 5) == 178)
            // Checkerboard: no runs, no blocks, no finder-like patterns, and 13/25 dark is within 5% of half.
            #expect(penalty((0..<25).map { ($0 / 5 + $0 % 5) % 2 == 0 }, 5) == 0)
            // 7×7 all light: 14 runs of 7 (5 each), 36 blocks, 0% dark.
            #expect(penalty(Array(repeating: false, count: 49), 7) == 14 * 5 + 36 * 3 + 100)
            // Same with row 3 = 1011101: six light rows and columns 1 and 5 keep runs of 7; the 12 blocks
            // touching row 3 break up; light on both sides of the pattern gives two matches; 5/49 dark → 70.
            let row: [Bool] = [true, false, true, true, true, false, true]
            let grid = (0..<49).map { $0 / 7 == 3 ? row[$0 % 7] : false }
            #expect(penalty(grid, 7) == 8 * 5 + 24 * 3 + 2 * 40 + 70)
            // A run of 8 dark in a row scores 3 + 3.
            let run = (0..<100).map { $0 < 8 || ($0 >= 10 && ($0 / 10 + $0 % 10) % 2 == 0) }
            #expect(penalty(run, 10) == Self.referencePenalty(run, size: 10))
        }
    }

    /// The encoder's bit-parallel scoring agrees with the plain one on random grids of every symbol size.
    @Test func penaltyMatchesReference() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for size in [5, 11, 21, 25, 57, 63, 64, 65, 101, 127, 128, 129, 177] {
            for density in size > 100 ? [2] : [2, 3, 8] { // sparse grids make long runs and finder-like patterns
                let grid = (0..<size * size).map { _ in next() % UInt64(density) == 0 }
                #expect(QRCode.penalty(grid, size: size) == Self.referencePenalty(grid, size: size), "size \(size) 1/\(density)")
                let inverted = grid.map { !$0 }
                #expect(QRCode.penalty(inverted, size: size) == Self.referencePenalty(inverted, size: size), "size \(size) inverted")
            }
        }
    }

    @Test func chosenMaskHasTheLowestPenalty() throws {
        for (text, level) in [
            ("https://go.example.com/summer-sale", QRCode.ErrorCorrection.quartile), (sampleText(200), .low),
            (sampleText(300, seed: 5), .high), (sampleText(500, seed: 6), .medium),
        ] {
            let code = try QRCode(text: text, errorCorrection: level)
            var matrix = QRCode.Matrix(version: code.version)
            let data = QRCode.dataCodewords(Array(text.utf8), mode: .byte, version: code.version, level: level)
            matrix.place(QRCode.interleavedCodewords(data, version: code.version, level: level))
            let penalties = (0..<8).map { mask in
                var copy = matrix
                copy.applyMask(mask)
                copy.drawFormat(QRCode.formatBits(level: level, mask: mask))
                #expect(QRCode.penalty(copy.dark, size: copy.size) == Self.referencePenalty(copy.dark, size: copy.size))
                return Self.referencePenalty(copy.dark, size: copy.size)
            }
            #expect(matrix.maskPenalties(level: level) == penalties)
            #expect(penalties.firstIndex(of: penalties.min()!) == code.mask, "v\(code.version)")
            // The symbol is exactly the chosen mask applied.
            var chosen = matrix
            chosen.applyMask(code.mask)
            chosen.drawFormat(QRCode.formatBits(level: level, mask: code.mask))
            #expect(chosen.dark == (0..<code.size * code.size).map { code.isDark(x: $0 % code.size, y: $0 / code.size) })
        }
    }

    @Test func valueSemantics() throws {
        let a = try QRCode(text: "https://go.example.com/x")
        let b = try QRCode(bytes: Array("https://go.example.com/x".utf8))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != (try QRCode(text: "https://go.example.com/y")))
        #expect(a != (try QRCode(text: "https://go.example.com/x", errorCorrection: .high)))
        let empty = try QRCode(text: "")
        #expect(empty.version == 1)
        #expect(QRCode.ErrorCorrection.allCases.map(\.rawValue) == ["L", "M", "Q", "H"])
    }
}

// MARK: - Rendering

@Suite("QRCode rendering", .takesTurns)
struct QRCodeRenderingTests {
    /// A minimal zlib reader for stored and fixed-Huffman deflate blocks (all the encoder writes).
    struct Inflater {
        let bytes: [UInt8]
        var bit = 0

        mutating func readBits(_ count: Int) throws -> Int {
            var value = 0
            for index in 0..<count {
                guard bit / 8 < bytes.count else { throw CocoaError(.fileReadCorruptFile) }
                value |= Int(bytes[bit / 8] >> UInt8(bit % 8) & 1) << index
                bit += 1
            }
            return value
        }

        mutating func readCode(_ count: Int, after prefix: Int = 0) throws -> Int {
            var code = prefix
            for _ in 0..<count { code = code << 1 | (try readBits(1)) }
            return code
        }

        mutating func literalOrLength() throws -> Int {
            let seven = try readCode(7)
            if seven <= 0b0010111 { return 256 + seven }
            let eight = try readCode(1, after: seven)
            if (0x30...0xBF).contains(eight) { return eight - 0x30 }
            if (0xC0...0xC7).contains(eight) { return 280 + eight - 0xC0 }
            return 144 + (try readCode(1, after: eight)) - 0x190
        }

        static func inflate(zlib: [UInt8]) throws -> [UInt8] {
            #expect(zlib.count > 6)
            #expect(zlib[0] & 0x0F == 8, "deflate")
            #expect((Int(zlib[0]) << 8 | Int(zlib[1])) % 31 == 0, "header check bits")
            #expect(zlib[1] & 0x20 == 0, "no preset dictionary")
            let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
            let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
            let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
                                2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
            var reader = Inflater(bytes: Array(zlib.dropFirst(2).dropLast(4)))
            var out: [UInt8] = []
            var final = false
            while !final {
                final = try reader.readBits(1) == 1
                switch try reader.readBits(2) {
                case 0:
                    reader.bit = (reader.bit + 7) / 8 * 8
                    let length = try reader.readBits(16), complement = try reader.readBits(16)
                    #expect(length ^ complement == 0xFFFF)
                    for _ in 0..<length { out.append(UInt8(try reader.readBits(8))) }
                case 1:
                    while true {
                        let symbol = try reader.literalOrLength()
                        if symbol < 256 {
                            out.append(UInt8(symbol))
                        } else if symbol == 256 {
                            break
                        } else {
                            let length = lengthBase[symbol - 257] + (try reader.readBits(lengthExtra[symbol - 257]))
                            let code = try reader.readCode(5)
                            let distance = distanceBase[code] + (try reader.readBits(max(0, code / 2 - 1)))
                            #expect(distance <= out.count)
                            for _ in 0..<length { out.append(out[out.count - distance]) }
                        }
                    }
                default:
                    throw CocoaError(.fileReadCorruptFile)
                }
            }
            var a = 1, b = 0
            for byte in out {
                a = (a + Int(byte)) % 65521
                b = (b + a) % 65521
            }
            let stored = zlib.suffix(4).reduce(0) { $0 << 8 | Int($1) }
            #expect(stored == b << 16 | a, "Adler-32")
            return out
        }
    }

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Chunks (type, data) after checking the signature and every CRC.
    static func chunks(_ png: [UInt8]) -> [(String, [UInt8])] {
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func u32(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = u32(offset)
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            let data = Array(png[offset + 8..<offset + 8 + length])
            #expect(UInt32(u32(offset + 8 + length)) == crc32(png[offset + 4..<offset + 8 + length]), "CRC of \(type)")
            result.append((type, data))
            offset += 12 + length
        }
        #expect(offset == png.count)
        return result
    }

    @Test(arguments: [(300, 4), (1, 4), (100, 0), (1000, 2), (20_000, 4), (500, -3), (500, 1000)])
    func pngPixelsMatchModules(pixels: Int, quietZone: Int) throws {
        let code = try QRCode(text: "https://go.example.com/summer-sale")
        let png = code.png(pixels: pixels, quietZone: quietZone)
        let chunks = Self.chunks(png)
        #expect(chunks.map(\.0) == ["IHDR", "IDAT", "IEND"])
        let header = chunks[0].1
        #expect(header.count == 13)
        let width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        #expect(Array(header[8...]) == [1, 0, 0, 0, 0])
        let quiet = min(max(quietZone, 0), 64)
        let across = code.size + 2 * quiet
        let scale = width / across
        #expect(width == height)
        #expect(width % across == 0 && scale >= 1)
        #expect(width <= max(min(pixels, 4096), across), "at most the pixels asked for (capped at 4096)")
        #expect(width + across > min(pixels, 4096) || scale == 1, "the largest whole scale")

        let raw = try Inflater.inflate(zlib: chunks[1].1)
        let rowLength = 1 + (width + 7) / 8
        #expect(raw.count == rowLength * height)
        var mismatches = 0
        for py in 0..<height {
            #expect(raw[py * rowLength] == 0, "filter type None")
            for px in 0..<width {
                let black = raw[py * rowLength + 1 + px / 8] & (0x80 >> UInt8(px % 8)) == 0
                if black != code.isDark(x: px / scale - quiet, y: py / scale - quiet) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func pngCompresses() throws {
        let code = try QRCode(text: sampleText(500), errorCorrection: .medium)
        let png = code.png(pixels: 2000)
        let raw = try Inflater.inflate(zlib: Self.chunks(png)[1].1)
        #expect(png.count * 10 < raw.count)
        #expect(png.count < 20_000)
    }

    /// Collects the SVG elements and their attributes.
    final class SVGCollector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            elements.append((elementName, attributeDict))
        }
    }

    static func parse(_ svg: String) -> [(name: String, attributes: [String: String])]? {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = SVGCollector()
        parser.delegate = collector
        return parser.parse() ? collector.elements : nil
    }

    @Test(arguments: [(256, 4), (512, 0), (64, 2), (0, -1)])
    func svgIsWellFormedAndMatchesModules(pixels: Int, quietZone: Int) throws {
        let code = try QRCode(text: "https://例え.jp/ünïcödé?q=✓", errorCorrection: .high)
        let svg = code.svg(pixels: pixels, quietZone: quietZone)
        let elements = try #require(Self.parse(svg))
        #expect(elements.map(\.name) == ["svg", "rect", "path"])
        let root = elements[0].attributes
        let quiet = max(quietZone, 0)
        let across = code.size + 2 * quiet
        #expect(root["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root["width"] == "\(max(pixels, 1))")
        #expect(root["height"] == "\(max(pixels, 1))")
        #expect(root["viewBox"] == "0 0 \(across) \(across)")
        #expect(root["shape-rendering"] == "crispEdges")
        #expect(elements[1].attributes["fill"] == "#ffffff")
        #expect(elements[1].attributes["width"] == "\(across)")
        #expect(elements[2].attributes["fill"] == "#000000")

        // Re-derive the grid from the path's runs and compare with every module, quiet zone included.
        let path = try #require(elements[2].attributes["d"])
        var grid = Array(repeating: Array(repeating: false, count: across), count: across)
        let runs = path.split(separator: "z")
        for run in runs {
            let match = try #require(run.wholeMatch(of: /M(\d+) (\d+)h(\d+)v1h-(\d+)/), "unexpected path piece \(run)")
            let x = Int(match.1)!, y = Int(match.2)!, width = Int(match.3)!
            #expect(Int(match.4)! == width)
            #expect(width >= 1 && x + width <= across && y < across)
            for column in x..<x + width {
                #expect(!grid[y][column], "modules drawn once")
                grid[y][column] = true
            }
            // Runs are maximal: the module after a run is light.
            #expect(!code.isDark(x: x + width - quiet, y: y - quiet))
        }
        for y in 0..<across {
            for x in 0..<across { #expect(grid[y][x] == code.isDark(x: x - quiet, y: y - quiet)) }
        }
        let darkRows = (0..<code.size).map { y in (0..<code.size).contains { code.isDark(x: $0, y: y) } }
        #expect(runs.count >= darkRows.filter { $0 }.count)
    }

    @Test func svgColours() throws {
        let code = try QRCode(text: "https://go.example.com/c")
        func colours(_ foreground: String, _ background: String) -> (String?, String?) {
            let elements = Self.parse(code.svg(pixels: 100, foreground: foreground, background: background)) ?? []
            return (elements.last?.attributes["fill"], elements.dropFirst().first?.attributes["fill"])
        }
        #expect(colours("#1A2b3C", "#FFEEDD") == ("#1a2b3c", "#ffeedd"))
        for bad in ["red", "#fff", "#12345g", "#1234567", "1234567", "#12345\"", "\"/><script>alert(1)</script>", "", "＃123456"] {
            #expect(colours(bad, bad) == ("#000000", "#ffffff"), "\(bad)")
        }
    }
}
