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
