extension QRCode {
    /// An SVG document of the symbol, `pixels` wide and high (at least 1), drawn in module units
    /// (`viewBox="0 0 n n"` with n = size + 2 × quiet zone), with `shape-rendering="crispEdges"`.
    /// The background is one `<rect>`; the dark modules are one `<path>` made of one
    /// `M x y h w v 1 h -w z` rectangle per horizontal run. `quietZone` is in modules (default 4,
    /// clamped to 0...64). Colours must be `#rrggbb`; anything else falls back to black and white.
    /// There is no XML declaration, so the document can also be embedded in HTML.
    package func svg(pixels: Int, quietZone: Int = 4, foreground: String = "#000000", background: String = "#ffffff") -> String {
        let quiet = min(max(quietZone, 0), Self.maxQuietZone)
        let across = size + 2 * quiet
        let width = max(1, pixels)
        let fill = Self.hexColour(foreground) ?? "#000000"
        let paper = Self.hexColour(background) ?? "#ffffff"

        var out: [UInt8] = []
        out.reserveCapacity(300 + size * size)
        out += Array("""
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(width)" viewBox="0 0 \(across) \(across)" \
            shape-rendering="crispEdges"><rect width="\(across)" height="\(across)" fill="\(paper)"/><path fill="\(fill)" d="
            """.utf8)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size, modules[y * size + x] { x += 1 }
                // M x y h w v 1 h -w z
                out.append(UInt8(ascii: "M"))
                out.appendDecimal(start + quiet)
                out.append(UInt8(ascii: " "))
                out.appendDecimal(y + quiet)
                out.append(UInt8(ascii: "h"))
                out.appendDecimal(x - start)
                out += [UInt8(ascii: "v"), UInt8(ascii: "1"), UInt8(ascii: "h"), UInt8(ascii: "-")]
                out.appendDecimal(x - start)
                out.append(UInt8(ascii: "z"))
            }
        }
        out += Array("\"/></svg>\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` in lowercase when it is exactly `#` and six hexadecimal digits, else nil.
    static func hexColour(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#"), bytes.dropFirst().allSatisfy({
            (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
        }) else { return nil }
        return text.lowercased()
    }
}

extension [UInt8] {
    /// Appends the decimal digits of `value` (0 or more).
    fileprivate mutating func appendDecimal(_ value: Int) {
        if value >= 10 { appendDecimal(value / 10) }
        append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
