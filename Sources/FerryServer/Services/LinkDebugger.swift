#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation

/// The debug report of a link, for `?d=1` on the link and `GET /v1/links/{id}/debug` alike: the link and its app,
/// with the link-level bundle ids the served association file names, at this instant.
struct LinkDebugger: Sendable {
    /// The association files the link domains serve (their link-level bundle ids).
    let associations: AssociationFileSource
    let now: @Sendable () -> Date

    /// The report of a link of an app.
    func report(for link: Link, app: App) async -> LinkDebugReport {
        LinkDebugReport(link: link, app: app, linkBundleIDs: await associations.linkBundleIDs(of: app), now: now())
    }
}
#endif
