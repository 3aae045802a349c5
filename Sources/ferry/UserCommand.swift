#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ferry user`: people's accounts for the dashboard, made on the server's machine (the first owner; the others are
/// invited from the dashboard).
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "Manage people's dashboard accounts.",
                                                    subcommands: [Create.self, List.self, SetPassword.self, Remove.self])

    /// The accounts service over the command's database, hashing at `FERRY_PASSWORD_HASH_COST` (log2 of scrypt's N).
    static func accounts(_ database: DatabaseOptions) async throws -> Accounts {
        let cost = try FerryConfiguration.passwordHashCost(ProcessInfo.processInfo.environment)
        return Accounts(admin: FerryAdmin(store: try await database.open()), hasher: PasswordHash(logCost: cost))
    }

    /// A password: the first line of standard input when it is not a terminal (scripts), else typed twice without echo.
    static func readPassword() throws -> String {
        if isatty(STDIN_FILENO) == 0 {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw FerryCore.ValidationError(field: "password", "give the password on standard input (one line)")
            }
            return line
        }
        func ask(_ prompt: String) -> String { getpass(prompt).map { String(cString: $0) } ?? "" }
        let first = ask("Password: ")
        guard ask("Password again: ") == first else { throw FerryCore.ValidationError(field: "password", "the two passwords differ") }
        return first
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an account with a role in apps; prints its id. The password is read from standard input, or typed twice.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The person's email (their sign-in name).") var email: String
        @Option(help: "owner, admin, editor or viewer.") var role: MemberRole
        @Option(name: .customLong("app"), help: "An app to give the role in (repeat; default: every app).") var apps: [String] = []

        func run() async throws {
            try await runReportingErrors {
                let accounts = try await UserCommand.accounts(database)
                let user = try await accounts.createUser(email: email, password: try UserCommand.readPassword(), role: role, appIDs: apps,
                                                         by: .thisCommand)
                print(user.id)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts: id, email, and each app with the role there.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await runReportingErrors {
                let store = try await database.open()
                for user in try await store.listUsers() {
                    let roles = try await store.memberships(userID: user.id).map { "\($0.appID)=\($0.role.rawValue)" }
                    print("\(user.id)\t\(user.email)\t\(roles.isEmpty ? "-" : roles.joined(separator: ","))")
                }
            }
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password", abstract: "Set an account's password (read as for create); its sessions end.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            try await runReportingErrors {
                let accounts = try await UserCommand.accounts(database)
                let user = try await UserCommand.user(email: email, in: accounts)
                try await accounts.setPassword(of: user, to: try UserCommand.readPassword(), keeping: nil, by: .thisCommand)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account; its sessions end at once.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            try await runReportingErrors {
                let accounts = try await UserCommand.accounts(database)
                _ = try await accounts.removeUser(try await UserCommand.user(email: email, in: accounts), by: .thisCommand)
            }
        }
    }

    static func user(email text: String, in accounts: Accounts) async throws -> UserRecord {
        let email = try AccountRules.validateEmail(text)
        guard let user = try await accounts.admin.store.user(email: email) else {
            throw FerryCore.ValidationError(code: .notFound, field: "email", "no account with the email \(email)")
        }
        return user
    }
}

extension MemberRole: ExpressibleByArgument {}
#endif
