#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import PostgresNIO

/// `postgres://user:password@host:port/database?sslmode=…` read into a client configuration.
struct PostgresURL {
    let configuration: PostgresClient.Configuration

    init(_ text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
              let host = components.host, !host.isEmpty else {
            throw PostgresURLError(message: "a PostgreSQL URL looks like postgres://user:password@host:5432/database")
        }
        let user = components.user?.removingPercentEncoding ?? "postgres"
        let password = components.password?.removingPercentEncoding
        let database = components.path.count > 1 ? String(components.path.dropFirst()).removingPercentEncoding : nil
        let security = try TransportSecurity(mode: components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer",
                                             rootCertificates: components.queryItems?.first { $0.name == "sslrootcert" }?.value)
        let tls: PostgresClient.Configuration.TLS = switch security.mode {
        case .disable: .disable
        case .prefer: .prefer(security.tlsConfiguration)
        case .require: .require(security.tlsConfiguration)
        }
        var configuration = PostgresClient.Configuration(host: host, port: components.port ?? 5432, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options.maximumConnections = 10
        // `search_path=name` keeps Ferry's tables in a schema of their own (created when missing).
        if let schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw PostgresURLError(message: "search_path must be a schema name of lowercase letters, digits and underscores")
            }
            self.schema = schema
        } else {
            schema = nil
        }
        // Names the connections in `pg_stat_activity` (PostgreSQL keeps the first 63 bytes, all ASCII here).
        applicationName = String(schema.map { "ferry/\($0)" }?.prefix(63) ?? "ferry")
        configuration.options.additionalStartupParameters = [("application_name", applicationName)] + (schema.map { [("search_path", $0)] } ?? [])
        self.configuration = configuration
        listener = Listener(host: host, port: components.port ?? 5432, username: user, password: password, database: database,
                            tls: security, startupParameters: configuration.options.additionalStartupParameters)
    }

    /// `sslmode` and `sslrootcert` as libpq reads them: whether TLS is used, and how far the server's certificate is
    /// believed.
    struct TransportSecurity: Sendable {
        enum Mode: Sendable { case disable, prefer, require }
        var mode: Mode
        /// The TLS settings: no verification (`prefer`, `require`), the chain (`verify-ca`), the chain and the host name
        /// (`verify-full`).
        var tlsConfiguration: TLSConfiguration

        init(mode text: String, rootCertificates: String?) throws {
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch text {
            case "disable":
                mode = .disable
            case "allow", "prefer":
                mode = .prefer
                configuration.certificateVerification = .none
            case "require":
                // As libpq: encrypted but not verified, unless a root certificate is named, which makes it verify-ca.
                mode = .require
                configuration.certificateVerification = rootCertificates == nil ? .none : .noHostnameVerification
            case "verify-ca":
                mode = .require
                configuration.certificateVerification = .noHostnameVerification
            case "verify-full":
                mode = .require
                configuration.certificateVerification = .fullVerification
            default:
                throw PostgresURLError(message: "sslmode must be disable, allow, prefer, require, verify-ca or verify-full")
            }
            if let rootCertificates, rootCertificates != "system" {
                guard FileManager.default.isReadableFile(atPath: rootCertificates) else {
                    throw PostgresURLError(message: "sslrootcert names a file that cannot be read: \(rootCertificates)")
                }
                configuration.trustRoots = .file(rootCertificates)
            }
            tlsConfiguration = configuration
        }
    }

    /// Where the connection that listens for change notices goes, outside the pool.
    struct Listener: Sendable {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var tls: TransportSecurity
        var startupParameters: [(String, String)]

        /// The connection's configuration; its TLS context is made here, when it connects (as the pool makes its
        /// own), not when the store opens.
        func configuration() throws -> PostgresConnection.Configuration {
            let context: PostgresConnection.Configuration.TLS = switch tls.mode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: tls.tlsConfiguration))
            case .require: .require(try NIOSSLContext(configuration: tls.tlsConfiguration))
            }
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: context)
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }
    }

    /// The schema Ferry's tables live in, when the URL names one.
    let schema: String?
    /// What the connections call themselves.
    let applicationName: String
    /// The connection that listens for change notices.
    let listener: Listener
}

/// A PostgreSQL URL Ferry cannot use.
package struct PostgresURLError: Error, CustomStringConvertible {
    /// What is wrong with it.
    package var message: String
    /// The message.
    package var description: String { message }
}
#endif
