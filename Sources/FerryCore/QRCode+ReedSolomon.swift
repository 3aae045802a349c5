extension QRCode {
    /// Splits the data codewords into the version's blocks (short blocks first, long ones one codeword longer),
    /// adds each block's Reed–Solomon codewords, and interleaves: data column by column, then error correction.
    static func interleavedCodewords(_ data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let (blockCount, ecLength) = blockLayout(version: version, level: level)
        let total = totalCodewordCount(version: version)
        let longBlocks = total % blockCount
        let shortLength = total / blockCount - ecLength
        let generator = ReedSolomon.generator(degree: ecLength)

        var blocks: [ArraySlice<UInt8>] = []
        var corrections: [[UInt8]] = []
        blocks.reserveCapacity(blockCount)
        corrections.reserveCapacity(blockCount)
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength + (index >= blockCount - longBlocks ? 1 : 0)
            let block = data[start..<start + length]
            blocks.append(block)
            corrections.append(ReedSolomon.remainder(block, generator: generator))
            start += length
        }

        var result: [UInt8] = []
        result.reserveCapacity(total)
        for column in 0...shortLength {
            for block in blocks where column < block.count { result.append(block[block.startIndex + column]) }
        }
        for column in 0..<ecLength {
            for correction in corrections { result.append(correction[column]) }
        }
        return result
    }

    /// Reed–Solomon over GF(256) with the field polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D) and generator element α = 2.
    enum ReedSolomon {
        private struct Tables: Sendable {
            /// αⁱ for i in 0..<510, so a sum of two logarithms needs no reduction.
            var exp = [UInt8](repeating: 0, count: 510)
            /// log_α(x) for x in 1...255.
            var log = [UInt8](repeating: 0, count: 256)
        }

        private static let tables: Tables = {
            var tables = Tables()
            var value = 1
            for power in 0..<255 {
                tables.exp[power] = UInt8(value)
                tables.exp[power + 255] = UInt8(value)
                tables.log[value] = UInt8(power)
                value <<= 1
                if value & 0x100 != 0 { value ^= 0x11D }
            }
            return tables
        }()

        /// The product of `a` and `b` in GF(256).
        static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
            guard a != 0, b != 0 else { return 0 }
            return tables.exp[Int(tables.log[Int(a)]) + Int(tables.log[Int(b)])]
        }

        /// (x − α⁰)(x − α¹)…(x − α^(degree−1)), coefficients from x^(degree−1) down to x⁰
        /// (the leading 1 of x^degree left out).
        static func generator(degree: Int) -> [UInt8] {
            var coefficients = [UInt8](repeating: 0, count: degree)
            coefficients[degree - 1] = 1 // the polynomial 1, as the lowest coefficient
            var root: UInt8 = 1
            for _ in 0..<degree {
                // Multiply by (x + root): shift up one degree and add root times the old polynomial.
                for index in 0..<degree {
                    let shifted = index + 1 < degree ? coefficients[index + 1] : 0
                    coefficients[index] = multiply(coefficients[index], root) ^ shifted
                }
                root = multiply(root, 2)
            }
            return coefficients
        }

        /// The remainder of data(x)·x^degree divided by the generator: the block's error-correction codewords.
        static func remainder(_ data: ArraySlice<UInt8>, generator: [UInt8]) -> [UInt8] {
            let degree = generator.count
            var remainder = [UInt8](repeating: 0, count: degree)
            let tables = tables
            let generatorLogs = generator.map { $0 == 0 ? -1 : Int(tables.log[Int($0)]) }
            for byte in data {
                let factor = byte ^ remainder[0]
                for index in 0..<degree - 1 { remainder[index] = remainder[index + 1] }
                remainder[degree - 1] = 0
                guard factor != 0 else { continue }
                let factorLog = Int(tables.log[Int(factor)])
                for index in 0..<degree where generatorLogs[index] >= 0 {
                    remainder[index] ^= tables.exp[generatorLogs[index] + factorLog]
                }
            }
            return remainder
        }
    }
}
