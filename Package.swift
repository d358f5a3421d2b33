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

    // Helpers every test target shares (temporary folders, the package root).
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
    .testTarget(name: "ScriptingTests", dependencies: ["Scripting", "CLuaShim", "TestSupport"]),
    .testTarget(name: "SettingsTests", dependencies: ["Settings", "TestSupport"]),
    .testTarget(name: "MessagesTests", dependencies: ["Messages", "TestSupport"]),
    .testTarget(name: "MeasurementsTests", dependencies: ["Measurements", "TestSupport"]),
    .testTarget(name: "ReportingTests", dependencies: ["Reporting", "TestSupport"]),
    .testTarget(name: "FlowsTests", dependencies: ["Flows", "TestSupport"]),
    .testTarget(
      name: "EndToEndTests", dependencies: ["workbench", "TestSupport"], exclude: ["Fixtures"]),
  ]
)
