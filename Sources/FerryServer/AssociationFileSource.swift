#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import FerryStore
import Foundation
import Synchronization

/// The association files a link domain serves: built from the app's settings and, for Apple's, the iPad bundle ids
/// its links name in their routing, which are read from the store at most once a minute per app (anyone may ask for
/// the file as often as they like; Apple's CDN asks rarely).
final class AssociationFileSource: Sendable {
    /// Most link-level bundle ids named in one file.
    static let maxLinkBundleIDs = 50
    /// How long the link-level bundle ids of an app are reused.
    static let refreshInterval: TimeInterval = 60

    private let store: any FerryDatabase
    private let now: @Sendable () -> Date
    private let remembered = Mutex<[String: (at: Date, ids: [String])]>([:])

    init(store: any FerryDatabase, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// `apple-app-site-association` for an app, as served on `host` (its path prefix, if any, decides the paths). Should the store fail, the file names the app's own bundle ids only
    /// (the file must not fail when the links cannot be read: Apple would drop the domain).
    func apple(for app: App, host: String? = nil) async -> Data {
        AssociationFiles.appleAppSiteAssociation(for: app, host: host, linkBundleIDs: await linkBundleIDs(of: app))
    }

    /// `assetlinks.json` for an app.
    func android(for app: App) -> Data {
        AssociationFiles.assetLinks(for: app)
    }

    /// The bundle ids the app's links name that its Apple file lists (its own are not among them).
    func linkBundleIDs(of app: App) async -> [String] {
        let time = now()
        if let known = remembered.withLock({ $0[app.id] }), time.timeIntervalSince(known.at) < Self.refreshInterval { return known.ids }
        guard let ids = try? await store.ipadBundleIDs(appID: app.id, limit: Self.maxLinkBundleIDs) else {
            return remembered.withLock { $0[app.id]?.ids } ?? []
        }
        remembered.withLock { memory in
            // Bounded by the number of apps; an app that no longer asks is simply refreshed when it does.
            memory[app.id] = (time, ids)
        }
        return ids
    }
}
#endif
