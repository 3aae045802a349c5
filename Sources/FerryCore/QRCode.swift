/// A QR Code symbol (ISO/IEC 18004, Model 2), versions 1 to 40, ready to draw as SVG or PNG.
///
/// The input is encoded as one segment: numeric mode when it is all digits, alphanumeric mode when it is
/// all `0-9 A-Z $%*+-./:` and space, byte mode otherwise (raw bytes, so UTF-8 text stays UTF-8; no ECI).
/// The smallest version that fits is used, and the mask with the lowest penalty score is applied.
package struct QRCode: Sendable, Hashable {
    /// How much damage the symbol survives; higher levels make bigger symbols.
    package enum ErrorCorrection: String, Sendable, CaseIterable {
        /// Recovers about 7% of the codewords.
        case low = "L"
        /// Recovers about 15% of the codewords.
        case medium = "M"
        /// Recovers about 25% of the codewords.
        case quartile = "Q"
        /// Recovers about 30% of the codewords.
        case high = "H"
    }

    /// The symbol version, 1...40: the symbol is `17 + 4 * version` modules across.
    package let version: Int
    /// The error-correction level the symbol was made with.
    package let errorCorrection: ErrorCorrection
    /// The data mask applied, 0...7: the one with the lowest penalty under the standard's four rules.
    package let mask: Int
    /// Row-major, `size * size`, `true` for dark.
    let modules: [Bool]

    /// Modules per side: `17 + 4 * version` (21...177), without the quiet zone.
    package var size: Int { 17 + 4 * version }

    /// Encodes the UTF-8 bytes of `text`; picks the smallest version (1...40) that fits at the chosen level.
    /// Throws when the text does not fit even in version 40.
    package init(text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes `bytes`; picks the smallest version (1...40) that fits at the chosen level.
    /// Throws when the bytes do not fit even in version 40.
    package init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        let mode = Mode(for: bytes)
        guard let version = (1...40).first(where: { bytes.count <= Self.capacity(mode: mode, version: $0, level: errorCorrection) }) else {
            throw QRCodeError(
                errorCorrection: errorCorrection, length: bytes.count,
                maxLength: Self.capacity(mode: mode, version: 40, level: errorCorrection), mode: mode
            )
        }
        let data = Self.dataCodewords(bytes, mode: mode, version: version, level: errorCorrection)
        let codewords = Self.interleavedCodewords(data, version: version, level: errorCorrection)
        var matrix = Matrix(version: version)
        matrix.place(codewords)
        let mask = matrix.applyBestMask(level: errorCorrection)
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = mask
        self.modules = matrix.dark
    }

    /// Whether the module at column `x`, row `y` (from the top-left corner) is dark;
    /// `false` outside `0..<size`, as in the quiet zone.
    package func isDark(x: Int, y: Int) -> Bool {
        let size = size
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

/// The input does not fit in a QR code (version 40) at the chosen error-correction level.
package struct QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error-correction level asked for.
    package let errorCorrection: QRCode.ErrorCorrection
    /// The length of the input, in bytes.
    package let length: Int
    /// The longest input that fits at that level, for this kind of input: bytes in general,
    /// more when the input is only digits or only uppercase alphanumerics.
    package let maxLength: Int
    let mode: QRCode.Mode

    /// For example `text is too long for a QR code at level M (max 2331 bytes)`.
    package var description: String {
        let unit = switch mode {
        case .numeric: "digits"
        case .alphanumeric: "characters"
        case .byte: "bytes"
        }
        return "text is too long for a QR code at level \(errorCorrection.rawValue) (max \(maxLength) \(unit))"
    }
}

// MARK: - Data encoding

extension QRCode {
    /// The segment mode used for the whole input.
    enum Mode: Sendable, Hashable {
        case numeric, alphanumeric, byte

        /// The most compact mode that can hold every byte of `bytes` (byte mode for empty input).
        init(for bytes: [UInt8]) {
            if bytes.isEmpty {
                self = .byte
            } else if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                self = .numeric
            } else if bytes.allSatisfy({ QRCode.alphanumericValue($0) != nil }) {
                self = .alphanumeric
            } else {
                self = .byte
            }
        }

        var indicator: UInt32 {
            switch self {
            case .numeric: 0b0001
            case .alphanumeric: 0b0010
            case .byte: 0b0100
            }
        }

        /// Width of the character count field.
        func countBits(version: Int) -> Int {
            let tier = version <= 9 ? 0 : version <= 26 ? 1 : 2
            switch self {
            case .numeric: return [10, 12, 14][tier]
            case .alphanumeric: return [9, 11, 13][tier]
            case .byte: return [8, 16, 16][tier]
            }
        }
    }

    /// Value of `byte` in the alphanumeric alphabet `0-9 A-Z space $ % * + - . / :`.
    static func alphanumericValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x5A: UInt32(byte - 0x41 + 10)
        case 0x20: 36
        case 0x24: 37
        case 0x25: 38
        case 0x2A: 39
        case 0x2B: 40
        case 0x2D: 41
        case 0x2E: 42
        case 0x2F: 43
        case 0x3A: 44
        default: nil
        }
    }

    /// The most characters of `mode` that fit in `version` at `level`.
    static func capacity(mode: Mode, version: Int, level: ErrorCorrection) -> Int {
        let available = dataCodewordCount(version: version, level: level) * 8 - 4 - mode.countBits(version: version)
        let count = switch mode {
        case .numeric: available / 10 * 3 + (available % 10 >= 7 ? 2 : available % 10 >= 4 ? 1 : 0)
        case .alphanumeric: available / 11 * 2 + (available % 11 >= 6 ? 1 : 0)
        case .byte: available / 8
        }
        return min(count, (1 << mode.countBits(version: version)) - 1)
    }

    /// Mode indicator, count, data, terminator and padding: exactly the version's data codewords.
    static func dataCodewords(_ bytes: [UInt8], mode: Mode, version: Int, level: ErrorCorrection) -> [UInt8] {
        let capacity = dataCodewordCount(version: version, level: level)
        var bits = BitWriter(capacity: capacity)
        bits.append(mode.indicator, count: 4)
        bits.append(UInt32(bytes.count), count: mode.countBits(version: version))
        switch mode {
        case .numeric:
            var index = 0
            while index < bytes.count {
                let digits = min(3, bytes.count - index)
                var value: UInt32 = 0
                for byte in bytes[index..<index + digits] { value = value * 10 + UInt32(byte - 0x30) }
                bits.append(value, count: digits * 3 + 1)
                index += digits
            }
        case .alphanumeric:
            var index = 0
            while index + 1 < bytes.count {
                bits.append(alphanumericValue(bytes[index])! * 45 + alphanumericValue(bytes[index + 1])!, count: 11)
                index += 2
            }
            if index < bytes.count { bits.append(alphanumericValue(bytes[index])!, count: 6) }
        case .byte:
            for byte in bytes { bits.append(UInt32(byte), count: 8) }
        }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var pad: UInt8 = 0xEC
        while bits.bytes.count < capacity {
            bits.bytes.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return bits.bytes
    }

    /// Appends bits most significant first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var count = 0

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func append(_ value: UInt32, count bitCount: Int) {
            for shift in stride(from: bitCount - 1, through: 0, by: -1) {
                if count % 8 == 0 { bytes.append(0) }
                if (value >> UInt32(shift)) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
                count += 1
            }
        }
    }
}

// MARK: - Capacity tables (ISO/IEC 18004 Table 9)

extension QRCode {
    /// Error-correction codewords per block, by level then version (index 0 unused).
    private static let ecCodewordsPerBlock: [[UInt8]] = [
        // L
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        // M
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        // Q
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        // H
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error-correction blocks, by level then version (index 0 unused).
    private static let blockCounts: [[UInt8]] = [
        // L
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        // M
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        // Q
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        // H
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    private static func levelIndex(_ level: ErrorCorrection) -> Int {
        switch level {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }

    /// How many blocks and error-correction codewords per block `version` has at `level`.
    static func blockLayout(version: Int, level: ErrorCorrection) -> (blocks: Int, ecPerBlock: Int) {
        let row = levelIndex(level)
        return (Int(blockCounts[row][version]), Int(ecCodewordsPerBlock[row][version]))
    }

    /// Modules left for codewords once every function pattern is drawn (includes the 0...7 remainder bits).
    static func dataModuleCount(version: Int) -> Int {
        let size = 17 + 4 * version
        var count = size * size
        count -= 3 * 64 // finders with separators
        count -= 2 * (size - 16) // timing patterns between the separators
        count -= 31 // two copies of format information and the dark module
        if version >= 2 {
            let perSide = version / 7 + 2
            let alignments = perSide * perSide - 3
            count -= alignments * 25
            count += 2 * (perSide - 2) * 5 // alignment patterns that sit on a timing pattern
        }
        if version >= 7 { count -= 36 }
        return count
    }

    /// All codewords (data and error correction) of `version`.
    static func totalCodewordCount(version: Int) -> Int { dataModuleCount(version: version) / 8 }

    /// Data codewords of `version` at `level`.
    static func dataCodewordCount(version: Int, level: ErrorCorrection) -> Int {
        let layout = blockLayout(version: version, level: level)
        return totalCodewordCount(version: version) - layout.blocks * layout.ecPerBlock
    }

    /// Row and column centres of the alignment patterns (empty for version 1).
    static func alignmentCentres(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = 4 * version + 10
        // Equal even steps back from the last centre to the second; version 32 is the standard's exception.
        let span = last - 6
        var step = (span + count - 2) / (count - 1)
        step += step & 1
        if version == 32 { step = 26 }
        var centres = [6]
        for index in stride(from: count - 2, through: 0, by: -1) { centres.append(last - index * step) }
        return centres
    }
}
