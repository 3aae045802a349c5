import Foundation

/// The open of a short or long link the server could not be asked about in time: kept in storage until it can be,
/// since resolving the link is what records the open on the server.
struct PendingOpen: Codable, Sendable, Hashable {
    /// Tells opens apart: a link opened twice is two opens.
    var id: String
    /// The URL the app was opened with.
    var url: URL
    /// The link domain it is on.
    var domain: String
    /// A short link's slug (the path the server reads); nil for a long link.
    var slug: String?
    /// The touch recorded for the open, in the form storage gives back (timestamp to the millisecond), so that it can
    /// be told from a later touch and replaced by the resolved link's while it is still the install's touch.
    var touch: AttributionTouch

    init(_ request: LinkRequest, touch: AttributionTouch) {
        id = UUID().uuidString
        url = request.url
        domain = request.domain
        slug = request.slug
        self.touch = (try? FerryJSON.makeDecoder().decode(AttributionTouch.self, from: FerryJSON.makeEncoder().encode(touch))) ?? touch
    }

    var request: LinkRequest { LinkRequest(url: url, domain: domain, slug: slug) }
}

/// The opens waiting in a ``FerryStorage``: at most ``maxCount`` (the oldest dropped first), none older than
/// ``maxAge``, and each sent by one caller at a time, even with several instances on one storage.
enum PendingOpens {
    static let storageKey = "links.pendingOpens"
    static let maxCount = 20
    /// Past a week an open is no longer worth recording: the server dates it when it hears of it.
    static let maxAge: TimeInterval = 7 * 86400

    /// The ids of the opens being sent in this process. Its lock also guards every change to the stored list.
    private static let sending = Locked(Set<String>())

    static func all(in storage: any FerryStorage) -> [PendingOpen] {
        storage.value([PendingOpen].self, forKey: storageKey) ?? []
    }

    private static func store(_ opens: [PendingOpen], in storage: any FerryStorage) {
        storage.setValue(opens.isEmpty ? nil : opens, forKey: storageKey)
    }

    /// Adds `open`, dropping the oldest beyond ``maxCount``; `beingSent` when its request is already under way.
    static func add(_ open: PendingOpen, to storage: any FerryStorage, beingSent: Bool) {
        sending.withLock { ids in
            var opens = all(in: storage)
            opens.append(open)
            if opens.count > maxCount { opens.removeFirst(opens.count - maxCount) }
            store(opens, in: storage)
            if beingSent { ids.insert(open.id) }
        }
    }

    /// The opens nobody is sending, now the caller's to send until ``finish(_:in:sent:)``; those older than
    /// ``maxAge`` are dropped.
    static func take(from storage: any FerryStorage, now: Date) -> [PendingOpen] {
        sending.withLock { ids in
            let opens = all(in: storage)
            let recent = opens.filter { now.timeIntervalSince($0.touch.timestamp) <= maxAge }
            if recent.count != opens.count { store(recent, in: storage) }
            let taken = recent.filter { !ids.contains($0.id) }
            ids.formUnion(taken.map(\.id))
            return taken
        }
    }

    /// Ends the sending of the open `id`: removed when it is `sent` (or will never be), kept for a later try otherwise.
    static func finish(_ id: String, in storage: any FerryStorage, sent: Bool) {
        sending.withLock { ids in
            ids.remove(id)
            guard sent else { return }
            let opens = all(in: storage)
            let rest = opens.filter { $0.id != id }
            if rest.count != opens.count { store(rest, in: storage) }
        }
    }
}

/// Sending the opens of links that could not be resolved when the app was opened with them.
extension Ferry {
    /// Sends the opens waiting in storage, one after the other, until the server cannot be asked; each success records
    /// the open on the server and completes the touch recorded for it. A caller that comes while they are being sent
    /// waits for that, then sends what came since.
    func sendPendingOpens() async {
        while true {
            let (task, isOwn) = openSender.withLock { current -> (Task<Void, Never>, Bool) in
                if let current { return (current, false) }
                let task = Task {
                    await self.drainPendingOpens()
                    self.openSender.withLock { $0 = nil }
                }
                current = task
                return (task, true)
            }
            await task.value
            if isOwn { return }
        }
    }

    /// Starts sending the waiting opens in the background, when there are any.
    func sendPendingOpensSoon() {
        guard !PendingOpens.all(in: storage).isEmpty else { return }
        Task { [weak self] in await self?.sendPendingOpens() }
    }

    private func drainPendingOpens() async {
        let opens = PendingOpens.take(from: storage, now: now())
        for (index, open) in opens.enumerated() {
            guard settle(open, with: await resolve(open.request, deadline: nil)) else {
                // The server cannot be asked now: the others wait for the next try.
                for rest in opens[(index + 1)...] { PendingOpens.finish(rest.id, in: storage, sent: false) }
                return
            }
        }
    }

    /// Keeps `open` for a later try; with `inFlight`, its request still under way, which settles it first.
    func keepOpen(_ open: PendingOpen, inFlight: Task<Result<DeepLink, FerryError>, Never>?) {
        PendingOpens.add(open, to: storage, beingSent: inFlight != nil)
        guard let inFlight else { return }
        Task {
            if self.settle(open, with: await inFlight.value) { self.sendPendingOpensSoon() }
        }
    }

    /// Ends the sending of `open` with the server's answer: a resolved link replaces the open's touch where it is still
    /// the install's first or last touch, and the open is done; a link the server does not have (or refuses as
    /// malformed) is dropped; any other failure keeps it. Returns whether the next open may be sent.
    @discardableResult
    func settle(_ open: PendingOpen, with result: Result<DeepLink, FerryError>) -> Bool {
        let name = open.slug ?? open.url.absoluteString.prefix(200).description
        switch result {
        case .success(let link):
            PendingOpens.finish(open.id, in: storage, sent: true)
            let replaced = attribution.replace(open.touch, with: AttributionTouch(deepLink: link, at: open.touch.timestamp))
            logger.info("the open of \(name) reached the server\(replaced ? "; its touch now has the link's data" : "")")
            return true
        case .failure(let error) where error.code == .notFound || error.code == .badRequest:
            PendingOpens.finish(open.id, in: storage, sent: true)
            logger.info("the open of \(name) was dropped: \(error.message)")
            return true
        case .failure(let error):
            PendingOpens.finish(open.id, in: storage, sent: false)
            logger.debug("the open of \(name) waits for a later try: \(error.message)")
            return false
        }
    }
}
