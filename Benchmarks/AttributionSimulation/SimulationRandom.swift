import Foundation

/// The simulator's own seeded generator: xoshiro256** whose state is filled by SplitMix64 from the seed.
///
/// Every draw of a run comes from generators made here, so one seed always gives the same population, on every
/// machine and every run. The system generator is never used.
struct SimulationRandom: RandomNumberGenerator {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A generator whose whole sequence follows from `seed`.
    init(seed: UInt64) {
        var mixer = seed
        s0 = Self.splitMix(&mixer)
        s1 = Self.splitMix(&mixer)
        s2 = Self.splitMix(&mixer)
        s3 = Self.splitMix(&mixer)
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    /// An independent stream for one purpose, so adding draws to one part of the population does not shift another.
    init(seed: UInt64, stream: String) {
        self.init(seed: StableHash.combine(seed, StableHash.of(stream)))
    }

    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Uniform in 0..<bound (bound > 0), without modulo bias worth mentioning at these sizes.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double { range.lowerBound + unit() * (range.upperBound - range.lowerBound) }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = max(unit(), 0x1p-60), v = unit()
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * v)
    }

    /// Log-normal with the given median and standard deviation of its logarithm.
    mutating func logNormal(median: Double, spread: Double) -> Double { median * Foundation.exp(spread * normal()) }

    /// One of `items`, chosen with the given weights.
    mutating func pick<T>(_ items: [(T, Double)]) -> T {
        let total = items.reduce(0) { $0 + $1.1 }
        var x = unit() * total
        for (item, weight) in items {
            if x < weight { return item }
            x -= weight
        }
        return items[items.count - 1].0
    }

    /// One element of a non-empty array, uniformly.
    mutating func element<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// A fixed 64-bit hash (FNV-1a, then mixed), the same on every run — unlike `Hasher`, which is seeded per process.
enum StableHash {
    static func of(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h &*= 0x0000_0100_0000_01B3
        }
        return mix(h)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func combine(_ values: UInt64...) -> UInt64 {
        var h: UInt64 = 0x2545_F491_4F6C_DD1D
        for value in values { h = mix(h ^ value) }
        return h
    }

    /// A uniform number in [0, 1) that depends only on its inputs: lets a device's whereabouts at a moment be a
    /// pure function, so the click and the install of the same device agree on where it was.
    static func unit(_ values: UInt64...) -> Double {
        var h: UInt64 = 0x2545_F491_4F6C_DD1D
        for value in values { h = mix(h ^ value) }
        return Double(h >> 11) * 0x1p-53
    }

    /// An opaque value like the server's keyed hashes of addresses and networks (`a4:3f09c1…`).
    static func token(_ kind: String, _ values: UInt64...) -> String {
        var h = of(kind)
        for value in values { h = mix(h ^ value) }
        let hex = String(h, radix: 16)
        return kind + ":" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
