/// A QR Code symbol (ISO/IEC 18004, Model 2), versions 1 to 40, ready to draw as SVG or PNG.
///
/// The input is encoded as one segment: numeric mode when it is all digits, alphanumeric mode when it is
/// all `0-9 A-Z $%*+-./:` and space, byte mode otherwise (raw bytes, so UTF-8 text stays UTF-8; no ECI).
/// The smallest version that fits is used, and the mask with the lowest penalty score is applied.
public struct QRCode: Sendable, Hashable {
    /// How much damage the symbol survives; higher levels make bigger symbols.
    public enum ErrorCorrection: String, Sendable, CaseIterable {
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
    public let version: Int
    /// The error-correction level the symbol was made with.
    public let errorCorrection: ErrorCorrection
    /// The data mask applied, 0...7: the one with the lowest penalty under the standard's four rules.
    public let mask: Int
    /// Row-major, `size * size`, `true` for dark.
    let modules: [Bool]

    /// Modules per side: `17 + 4 * version` (21...177), without the quiet zone.
    public var size: Int { 17 + 4 * version }

    /// Encodes the UTF-8 bytes of `text`; picks the smallest version (1...40) that fits at the chosen level.
    /// Throws when the text does not fit even in version 40.
    public init(text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes `bytes`; picks the smallest version (1...40) that fits at the chosen level.
    /// Throws when the bytes do not fit even in version 40.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
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
    public func isDark(x: Int, y: Int) -> Bool {
        let size = size
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

/// The input does not fit in a QR code (version 40) at the chosen error-correction level.
public struct QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error-correction level asked for.
    public let errorCorrection: QRCode.ErrorCorrection
    /// The length of the input, in bytes.
    public let length: Int
    /// The longest input that fits at that level, for this kind of input: bytes in general,
    /// more when the input is only digits or only uppercase alphanumerics.
    public let maxLength: Int
    let mode: QRCode.Mode

    /// For example `text is too long for a QR code at level M (max 2331 bytes)`.
    public var description: String {
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

// MARK: - The module matrix

extension QRCode {
    /// A symbol under construction: function patterns first, then data, then the mask.
    struct Matrix {
        let version: Int
        let size: Int
        var dark: [Bool]
        /// Function modules (finders, separators, timing, alignment, format, version, dark module).
        var reserved: [Bool]

        init(version: Int) {
            self.version = version
            size = 17 + 4 * version
            dark = Array(repeating: false, count: size * size)
            reserved = Array(repeating: false, count: size * size)
            drawFunctionPatterns()
        }

        private mutating func set(_ x: Int, _ y: Int, _ isDark: Bool) {
            dark[y * size + x] = isDark
            reserved[y * size + x] = true
        }

        private mutating func drawFunctionPatterns() {
            for i in 0..<size {
                set(6, i, i % 2 == 0)
                set(i, 6, i % 2 == 0)
            }
            for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                for dy in -4...4 {
                    for dx in -4...4 {
                        let x = cx + dx, y = cy + dy
                        guard x >= 0, y >= 0, x < size, y < size else { continue }
                        let ring = max(abs(dx), abs(dy))
                        set(x, y, ring != 2 && ring != 4)
                    }
                }
            }
            let centres = QRCode.alignmentCentres(version: version)
            let last = centres.count - 1
            for (row, cy) in centres.enumerated() {
                for (column, cx) in centres.enumerated() {
                    if (row == 0 && column == 0) || (row == 0 && column == last) || (row == last && column == 0) { continue }
                    for dy in -2...2 {
                        for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                    }
                }
            }
            for index in 0..<15 { // the bits themselves are written once the mask is chosen
                let (first, second) = formatPositions(index)
                reserved[first] = true
                reserved[second] = true
            }
            set(8, size - 8, true) // the dark module
            if version >= 7 {
                let bits = QRCode.versionBits(version)
                for i in 0..<18 {
                    let bit = (bits >> i) & 1 == 1
                    let a = size - 11 + i % 3, b = i / 3
                    set(a, b, bit)
                    set(b, a, bit)
                }
            }
        }

        /// Where format bit `index` (0 = least significant) goes: copy 1 around the top-left finder,
        /// copy 2 split between the bottom-left and top-right finders.
        private func formatPositions(_ index: Int) -> (first: Int, second: Int) {
            let first = switch index {
            case 0..<6: (8, index)
            case 6: (8, 7)
            case 7: (8, 8)
            case 8: (7, 8)
            default: (14 - index, 8)
            }
            let second = index < 8 ? (size - 1 - index, 8) : (8, size - 15 + index)
            return (first.1 * size + first.0, second.1 * size + second.0)
        }

        /// Writes both copies of the 15 format bits.
        mutating func drawFormat(_ bits: Int) {
            for index in 0..<15 {
                let (first, second) = formatPositions(index)
                let isDark = (bits >> index) & 1 == 1
                dark[first] = isDark
                dark[second] = isDark
            }
        }

        /// Codewords into the data area, two-column zigzag from the bottom-right corner, skipping the
        /// vertical timing column; leftover modules are remainder bits (light before masking).
        mutating func place(_ codewords: [UInt8]) {
            let bitCount = codewords.count * 8
            var index = 0
            var upward = true
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                for step in 0..<size {
                    let y = upward ? size - 1 - step : step
                    for x in stride(from: right, through: right - 1, by: -1) where !reserved[y * size + x] {
                        if index < bitCount {
                            dark[y * size + x] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                            index += 1
                        }
                    }
                }
                upward.toggle()
                right -= 2
            }
        }

        /// Flips the data modules selected by mask pattern `mask`.
        mutating func applyMask(_ mask: Int) {
            let size = size
            let pattern = QRCode.maskPatterns
            reserved.withUnsafeBufferPointer { reserved in
                dark.withUnsafeMutableBufferPointer { dark in
                    for i in 0..<size {
                        let patternRow = mask * 72 + (i % 12) * 6
                        var j6 = 0
                        for index in i * size..<(i + 1) * size {
                            if pattern[patternRow + j6] && !reserved[index] { dark[index].toggle() }
                            j6 = j6 == 5 ? 0 : j6 + 1
                        }
                    }
                }
            }
        }

        /// Tries all eight masks (each with its format bits) and keeps the one with the lowest penalty,
        /// the lowest-numbered on a tie.
        mutating func applyBestMask(level: ErrorCorrection) -> Int {
            let penalties = maskPenalties(level: level)
            let best = penalties.indices.min { penalties[$0] < penalties[$1] }!
            applyMask(best)
            drawFormat(QRCode.formatBits(level: level, mask: best))
            return best
        }

        /// The penalty of the symbol under each mask 0...7, scored on bit-packed rows and columns:
        /// masked line = line XOR (mask pattern AND data modules), and the patterns repeat every 12 rows
        /// and every 6 columns.
        func maskPenalties(level: ErrorCorrection) -> [Int] {
            var baseRows = [Line](repeating: Line(), count: size)
            var baseColumns = baseRows
            var dataRows = baseRows
            var dataColumns = baseRows
            for y in 0..<size {
                for x in 0..<size {
                    let index = y * size + x
                    if dark[index] {
                        baseRows[y].set(x)
                        baseColumns[x].set(y)
                    }
                    if !reserved[index] {
                        dataRows[y].set(x)
                        dataColumns[x].set(y)
                    }
                }
            }
            let formatModules = (0..<15).map { formatPositions($0) }
            var rows = baseRows
            var columns = baseColumns
            return (0..<8).map { (mask: Int) -> Int in
                var rowPatterns = [Line](repeating: Line(), count: 12)
                var columnPatterns = [Line](repeating: Line(), count: 6)
                for i in 0..<12 {
                    for j in 0..<6 where QRCode.maskPatterns[mask * 72 + i * 6 + j] {
                        for x in stride(from: j, to: size, by: 6) { rowPatterns[i].set(x) }
                        for y in stride(from: i, to: size, by: 12) { columnPatterns[j].set(y) }
                    }
                }
                for line in 0..<size {
                    rows[line] = baseRows[line] ^ (rowPatterns[line % 12] & dataRows[line])
                    columns[line] = baseColumns[line] ^ (columnPatterns[line % 6] & dataColumns[line])
                }
                let format = QRCode.formatBits(level: level, mask: mask)
                for (bit, (first, second)) in formatModules.enumerated() where (format >> bit) & 1 == 1 {
                    rows[first / size].set(first % size)
                    columns[first % size].set(first / size)
                    rows[second / size].set(second % size)
                    columns[second % size].set(second / size)
                }
                return QRCode.penalty(rows: rows, columns: columns, size: size)
            }
        }
    }

    /// The eight mask conditions (i = row, j = column) over one 12 × 6 period, `[mask * 72 + (i % 12) * 6 + j % 6]`.
    static let maskPatterns: [Bool] = (0..<8).flatMap { mask in
        (0..<12).flatMap { i in
            (0..<6).map { j in
                switch mask {
                case 0: (i + j) % 2 == 0
                case 1: i % 2 == 0
                case 2: j % 3 == 0
                case 3: (i + j) % 3 == 0
                case 4: (i / 2 + j / 3) % 2 == 0
                case 5: (i * j) % 2 + (i * j) % 3 == 0
                case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
                default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
                }
            }
        }
    }

    /// The standard's mask penalty: runs of five or more in a row or column (N1 = 3, +1 per extra module),
    /// 2×2 blocks of one colour (N2 = 3), 1:1:3:1:1 finder-like patterns with four light modules on
    /// one side (N3 = 40; modules outside the symbol count as light, as the quiet zone is), and the dark
    /// proportion away from 50% (N4 = 10 per whole 5%). `rows[y]` holds module (x, y) in bit x,
    /// `columns[x]` holds it in bit y.
    static func penalty(rows: [Line], columns: [Line], size: Int) -> Int {
        var score = 0
        var darkCount = 0
        let pairMask = Line.low(size - 1)
        for line in 0..<size {
            score += linePenalty(rows[line], size: size) + linePenalty(columns[line], size: size)
            darkCount += rows[line].nonzeroBitCount
            if line + 1 < size {
                let top = rows[line]
                let vertical = ~(top ^ rows[line + 1]) // module equals the one below
                let blocks = vertical & (vertical >> 1) & ~(top ^ (top >> 1)) & pairMask
                score += 3 * blocks.nonzeroBitCount
            }
        }
        let total = size * size
        return score + 10 * (abs(darkCount * 20 - total * 10) / total)
    }

    /// Rules 1 and 3 for one row or column of `size` modules.
    private static func linePenalty(_ line: Line, size: Int) -> Int {
        // Rule 1: `equal` bit p says modules p and p + 1 match; `five` marks the first module of five alike.
        // A run of n ≥ 5 has n − 4 such starts and scores n − 2: their count plus 2 for the run's first.
        let equal = ~(line ^ (line >> 1)) & Line.low(size - 1)
        let five = equal & (equal >> 1) & (equal >> 2) & (equal >> 3)
        let runStarts = five & ~(equal << 1)
        var score = five.nonzeroBitCount + 2 * runStarts.nonzeroBitCount
        // Rule 3, on the line padded with four light modules each side.
        let padded = line << 4
        let core = padded & ~(padded >> 1) & (padded >> 2) & (padded >> 3) & (padded >> 4) & ~(padded >> 5) & (padded >> 6)
        let light = ~(padded | (padded >> 1) | (padded >> 2) | (padded >> 3)) // four light from here
        score += 40 * ((core & (light >> 7)).nonzeroBitCount + (light & (core >> 4)).nonzeroBitCount)
        return score
    }

    /// The modules of one row or column, module k in bit k; 192 bits cover version 40 and its padding.
    struct Line: Equatable {
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0

        /// Bits 0..<count set.
        static func low(_ count: Int) -> Line {
            func word(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? ~0 : (1 << UInt64(bits)) - 1 }
            return Line(w0: word(count), w1: word(count - 64), w2: word(count - 128))
        }

        mutating func set(_ index: Int) {
            let bit: UInt64 = 1 << UInt64(index & 63)
            switch index >> 6 {
            case 0: w0 |= bit
            case 1: w1 |= bit
            default: w2 |= bit
            }
        }

        var nonzeroBitCount: Int { w0.nonzeroBitCount + w1.nonzeroBitCount + w2.nonzeroBitCount }

        static func & (a: Line, b: Line) -> Line { Line(w0: a.w0 & b.w0, w1: a.w1 & b.w1, w2: a.w2 & b.w2) }
        static func | (a: Line, b: Line) -> Line { Line(w0: a.w0 | b.w0, w1: a.w1 | b.w1, w2: a.w2 | b.w2) }
        static func ^ (a: Line, b: Line) -> Line { Line(w0: a.w0 ^ b.w0, w1: a.w1 ^ b.w1, w2: a.w2 ^ b.w2) }
        static prefix func ~ (a: Line) -> Line { Line(w0: ~a.w0, w1: ~a.w1, w2: ~a.w2) }

        /// Bit p of the result is bit p + shift of `a` (1 ≤ shift < 64).
        static func >> (a: Line, shift: Int) -> Line {
            let s = UInt64(shift), back = UInt64(64 - shift)
            return Line(w0: a.w0 >> s | a.w1 << back, w1: a.w1 >> s | a.w2 << back, w2: a.w2 >> s)
        }

        /// Bit p + shift of the result is bit p of `a` (1 ≤ shift < 64).
        static func << (a: Line, shift: Int) -> Line {
            let s = UInt64(shift), back = UInt64(64 - shift)
            return Line(w0: a.w0 << s, w1: a.w1 << s | a.w0 >> back, w2: a.w2 << s | a.w1 >> back)
        }
    }

    /// The penalty of a square grid of modules (row-major, `true` for dark).
    static func penalty(_ dark: [Bool], size: Int) -> Int {
        var rows = [Line](repeating: Line(), count: size)
        var columns = rows
        for y in 0..<size {
            for x in 0..<size where dark[y * size + x] {
                rows[y].set(x)
                columns[x].set(y)
            }
        }
        return penalty(rows: rows, columns: columns, size: size)
    }

    /// The 15 format bits: level and mask, BCH(15,5) with generator 0x537, XOR 0x5412.
    static func formatBits(level: ErrorCorrection, mask: Int) -> Int {
        let levelBits = switch level {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
        let data = levelBits << 3 | mask
        return (data << 10 | bchRemainder(data << 10, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// The 18 version bits: version and BCH(18,6) with generator 0x1F25.
    static func versionBits(_ version: Int) -> Int {
        version << 12 | bchRemainder(version << 12, generator: 0x1F25, degree: 12)
    }

    private static func bchRemainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value
        var bit = Int.bitWidth - 1 - remainder.leadingZeroBitCount
        while bit >= degree {
            if (remainder >> bit) & 1 == 1 { remainder ^= generator << (bit - degree) }
            bit -= 1
        }
        return remainder
    }
}
