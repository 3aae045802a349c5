extension QRCode {
    /// The widest PNG `png(pixels:quietZone:)` makes when asked for more: bounds memory for any input.
    static let maxPNGPixels = 4096
    /// The widest quiet zone drawn, in modules; larger requests are clamped to it, negative ones to 0.
    static let maxQuietZone = 64

    /// A PNG file of the symbol: 1-bit grayscale, square, with a light quiet zone of `quietZone` modules
    /// (default 4, clamped to 0...64). Each module is the largest whole number of pixels that keeps the image
    /// at most `pixels` wide (`pixels` is capped at 4096), but at least one pixel, so a too-small `pixels`
    /// gives an image one pixel per module. The image data is zlib-compressed (fixed-Huffman deflate).
    package func png(pixels: Int, quietZone: Int = 4) -> [UInt8] {
        let quiet = min(max(quietZone, 0), Self.maxQuietZone)
        let modulesAcross = size + 2 * quiet
        let scale = max(1, min(pixels, Self.maxPNGPixels) / modulesAcross)
        let width = modulesAcross * scale
        let rowLength = 1 + (width + 7) / 8 // filter byte, then 8 pixels per byte, dark = 0

        var raw = [UInt8](repeating: 0xFF, count: rowLength * width)
        for y in 0..<size {
            let rowStart = (quiet + y) * scale * rowLength
            for x in 0..<size where modules[y * size + x] {
                for pixel in (quiet + x) * scale..<(quiet + x + 1) * scale {
                    raw[rowStart + 1 + pixel >> 3] &= ~(0x80 >> UInt8(pixel & 7))
                }
            }
            for copy in 1..<scale {
                let target = rowStart + copy * rowLength
                raw.withUnsafeMutableBufferPointer { buffer in
                    for offset in 0..<rowLength { buffer[target + offset] = buffer[rowStart + offset] }
                }
            }
        }
        for row in 0..<width { raw[row * rowLength] = 0 } // filter type None

        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(width))
        header += [1, 0, 0, 0, 0] // bit depth 1, grayscale, deflate, adaptive filtering, no interlace

        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        PNG.appendChunk("IHDR", header, to: &file)
        PNG.appendChunk("IDAT", PNG.zlib(raw, rowLength: rowLength), to: &file)
        PNG.appendChunk("IEND", [], to: &file)
        return file
    }

    /// PNG container, zlib and deflate pieces.
    enum PNG {
        static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
            file.appendBigEndian(UInt32(data.count))
            let start = file.count
            file += Array(type.utf8)
            file += data
            file.appendBigEndian(crc32(file[start...]))
        }

        private static let crcTable: [UInt32] = (0..<256).map { (index: UInt32) in
            var value = index
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            return value
        }

        /// CRC-32 (ISO 3309 / ITU-T V.42, as PNG uses it).
        static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            let table = crcTable
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return crc ^ 0xFFFF_FFFF
        }

        /// Adler-32 of `bytes`.
        static func adler32(_ bytes: [UInt8]) -> UInt32 {
            var a: UInt32 = 1, b: UInt32 = 0
            var index = 0
            while index < bytes.count {
                let end = min(index + 5552, bytes.count) // the most bytes before b can overflow
                for byte in bytes[index..<end] {
                    a += UInt32(byte)
                    b += a
                }
                a %= 65521
                b %= 65521
                index = end
            }
            return b << 16 | a
        }

        /// A zlib stream: header, one fixed-Huffman deflate block, Adler-32.
        /// Matches are only tried at distance 1 (runs) and `rowLength` (the row above), which is where
        /// a scaled-up QR code repeats itself.
        static func zlib(_ data: [UInt8], rowLength: Int) -> [UInt8] {
            var bits = DeflateWriter()
            bits.out.reserveCapacity(data.count / 8 + 64)
            bits.out += [0x78, 0x9C]
            bits.write(1, count: 1) // BFINAL
            bits.write(1, count: 2) // BTYPE 01: fixed Huffman codes
            data.withUnsafeBufferPointer { data in
                var index = 0
                while index < data.count {
                    let limit = min(258, data.count - index)
                    func matchLength(distance: Int) -> Int {
                        guard distance <= index else { return 0 }
                        var length = 0
                        while length < limit, data[index + length] == data[index + length - distance] { length += 1 }
                        return length
                    }
                    var bestLength = matchLength(distance: rowLength), bestDistance = rowLength
                    if bestLength < limit {
                        let runLength = matchLength(distance: 1)
                        if runLength > bestLength {
                            bestLength = runLength
                            bestDistance = 1
                        }
                    }
                    if bestLength >= 3 {
                        bits.writeMatch(length: bestLength, distance: bestDistance)
                        index += bestLength
                    } else {
                        bits.writeSymbol(Int(data[index]))
                        index += 1
                    }
                }
            }
            bits.writeSymbol(256)
            bits.flush()
            bits.out.appendBigEndian(adler32(data))
            return bits.out
        }
    }

    /// Deflate's least-significant-bit-first bit stream with the fixed Huffman codes (RFC 1951, 3.2.6).
    struct DeflateWriter {
        var out: [UInt8] = []
        private var buffer: UInt64 = 0
        private var pending = 0

        private static let lengthBases: [Int] = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
        ]
        private static let lengthExtraBits: [Int] = [
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
        ]
        private static let distanceBases: [Int] = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
            4097, 6145, 8193, 12289, 16385, 24577,
        ]

        mutating func write(_ value: Int, count: Int) {
            buffer |= UInt64(value) << UInt64(pending)
            pending += count
            while pending >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                pending -= 8
            }
        }

        /// Huffman codes go most significant bit first.
        private mutating func writeCode(_ code: Int, count: Int) {
            var reversed = 0
            for bit in 0..<count { reversed |= ((code >> bit) & 1) << (count - 1 - bit) }
            write(reversed, count: count)
        }

        /// A literal byte (0...255), end of block (256) or length code (257...285).
        mutating func writeSymbol(_ symbol: Int) {
            switch symbol {
            case 0...143: writeCode(0x30 + symbol, count: 8)
            case 144...255: writeCode(0x190 + symbol - 144, count: 9)
            case 256...279: writeCode(symbol - 256, count: 7)
            default: writeCode(0xC0 + symbol - 280, count: 8)
            }
        }

        /// A back-reference: `length` 3...258, `distance` 1...32768.
        mutating func writeMatch(length: Int, distance: Int) {
            let lengthCode = Self.lengthBases.lastIndex { $0 <= length }!
            writeSymbol(257 + lengthCode)
            write(length - Self.lengthBases[lengthCode], count: Self.lengthExtraBits[lengthCode])
            let distanceCode = Self.distanceBases.lastIndex { $0 <= distance }!
            writeCode(distanceCode, count: 5)
            write(distance - Self.distanceBases[distanceCode], count: max(0, distanceCode / 2 - 1))
        }

        /// Pads the last byte with zero bits.
        mutating func flush() {
            if pending > 0 { write(0, count: 8 - pending) }
        }
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
