#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

/// Which of an app's links a list shows: every condition given must hold (none given: every link).
package struct LinkFilter: Sendable, Hashable {
    /// A link's state at a moment.
    package enum Status: String, Sendable, CaseIterable {
        /// Neither disabled nor past its expiry.
        case active
        /// Past its expiry (and not disabled).
        case expired
        /// Disabled, whatever its expiry.
        case disabled
    }

    /// Only the links made in the app with its publishable key (true), or only the others (false).
    package var createdInApp: Bool?
    /// Text the slug, destination or campaign (its own or UTM) contains, in any case.
    package var text: String?
    /// The links in this state at `now`.
    package var status: Status?
    /// The links filed under this campaign: their own, else their UTM campaign (as the dashboard shows them).
    package var campaign: String?
    /// The links on this domain.
    package var domain: String?
    /// The links made at or after this moment.
    package var createdFrom: Date?
    /// The links made before this moment.
    package var createdBefore: Date?
    /// The moment `status` is judged at.
    package var now: Date

    package init(createdInApp: Bool? = nil, text: String? = nil, status: Status? = nil, campaign: String? = nil, domain: String? = nil,
                 createdFrom: Date? = nil, createdBefore: Date? = nil, now: Date = Date()) {
        self.createdInApp = createdInApp
        self.text = text
        self.status = status
        self.campaign = campaign
        self.domain = domain
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.now = now
    }

    /// A value a condition compares with.
    enum Value: Sendable, Hashable {
        case text(String)
        case number(Double)
    }

    /// The conditions, each beginning with ` AND `, with `?` where a value goes, and the values in their order. The
    /// same text serves SQLite (`?`) and PostgreSQL (each `?` becomes `$n`).
    var conditions: (sql: String, values: [Value]) {
        var sql = createdInAppCondition(createdInApp)
        var values: [Value] = []
        if let text, !text.isEmpty {
            let pattern = containsPattern(text)
            sql += " AND (lower(slug) LIKE ? ESCAPE '\\' OR lower(destination) LIKE ? ESCAPE '\\'"
                + " OR lower(COALESCE(campaign, '')) LIKE ? ESCAPE '\\' OR lower(COALESCE(utm_campaign, '')) LIKE ? ESCAPE '\\')"
            values += Array(repeating: .text(pattern), count: 4)
        }
        switch status {
        case .active?:
            sql += " AND NOT disabled AND (expires_at IS NULL OR expires_at > ?)"
            values.append(.number(now.timeIntervalSince1970))
        case .expired?:
            sql += " AND NOT disabled AND expires_at IS NOT NULL AND expires_at <= ?"
            values.append(.number(now.timeIntervalSince1970))
        case .disabled?:
            sql += " AND disabled"
        case nil:
            break
        }
        if let campaign {
            sql += " AND COALESCE(campaign, utm_campaign) = ?"
            values.append(.text(campaign))
        }
        if let domain {
            sql += " AND domain = ?"
            values.append(.text(domain.lowercased()))
        }
        if let createdFrom {
            sql += " AND created_at >= ?"
            values.append(.number(createdFrom.timeIntervalSince1970))
        }
        if let createdBefore {
            sql += " AND created_at < ?"
            values.append(.number(createdBefore.timeIntervalSince1970))
        }
        return (sql, values)
    }
}
#endif
