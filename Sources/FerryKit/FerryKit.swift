// FerryKit, the iOS SDK, speaks the wire contract in FerryAPI; apps that import FerryKit see those types
// (key formats, routes, request and answer shapes, DeviceSignals, UTMParameters) without a second import.
@_exported import FerryAPI
