// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "workbench",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "workbench", targets: ["workbench"]),
    .executable(name: "workbench-bench", targets: ["workbench-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
  ],
  targets: [
    // Lua 5.4 from the system (Debian liblua5.4-dev).
    .systemLibrary(
      name: "CLua", pkgConfig: "lua5.4",
      providers: [.apt(["liblua5.4-dev"])]),
    // The C side of the Lua boundary: sandbox, limits, errors, table fill.
    .target(name: "CLuaShim", dependencies: ["CLua"]),
    .target(name: "JSONCore"),
    .target(
      name: "Diagnostics",
      dependencies: [.product(name: "Logging", package: "swift-log")]),
    .target(name: "Scripting", dependencies: ["CLuaShim", "JSONCore", "Diagnostics"]),
    .target(name: "Settings", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Messages", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Measurements", dependencies: ["JSONCore", "Diagnostics"]),
    .target(name: "Reporting", dependencies: ["JSONCore", "Diagnostics", "Measurements"]),
    .target(
      name: "Flows",
      dependencies: [
        "Scripting", "Settings", "Messages", "Measurements", "Reporting", "Diagnostics", "JSONCore",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "workbench",
      dependencies: [
        "Flows", "Settings", "Diagnostics", "Reporting",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "workbench-bench",
      dependencies: ["Flows", "Scripting", "Measurements", "Reporting", "Diagnostics"]),

    .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
    .testTarget(name: "ScriptingTests", dependencies: ["Scripting", "CLuaShim"]),
    .testTarget(name: "SettingsTests", dependencies: ["Settings"]),
    .testTarget(name: "MessagesTests", dependencies: ["Messages"]),
    .testTarget(name: "MeasurementsTests", dependencies: ["Measurements"]),
    .testTarget(name: "ReportingTests", dependencies: ["Reporting"]),
    .testTarget(name: "FlowsTests", dependencies: ["Flows"]),
    .testTarget(name: "EndToEndTests", dependencies: ["workbench"], exclude: ["Fixtures"]),
  ]
)
