import Foundation
import Settings
import TestSupport
import Testing

/// One layout, found at run time: a checkout, an installed tree and the same
/// tree unpacked somewhere else are each recognised from the executable's place.
@Suite struct WorkbenchHomeTests {
  /// The files that make a data folder: configs/ and the step library.
  private func makeData(_ folder: TemporaryFolder, at data: String) throws {
    _ = try folder.write(data + "/configs/settings.json", "{}")
    _ = try folder.write(data + "/plugins/wb/init.lua", "return {}")
  }

  @Test func anInstalledTreeIsFoundFromItsExecutableWhereverItIsUnpacked() throws {
    let folder = try TemporaryFolder(prefix: "home-tests")
    defer { folder.remove() }
    try makeData(folder, at: "usr/share/workbench")
    _ = try folder.write("usr/bin/workbench", "")
    for prefix in [folder.file("usr"), folder.file("opt/workbench-0.1.0")] {
      if prefix != folder.file("usr") {
        _ = try folder.subfolder("opt")
        try FileManager.default.moveItem(atPath: folder.file("usr"), toPath: prefix)
      }
      let home = try WorkbenchHome.locate(
        executable: prefix + "/bin/workbench", currentFolder: "/", environment: ["HOME": "/home/ann"])
      #expect(home.layout == .installed(prefix: prefix))
      #expect(home.root == prefix + "/share/workbench")
      #expect(home.configs == prefix + "/share/workbench/configs")
      #expect(home.faceLibrary == prefix + "/lib/workbench/libmediapipe.so")
      #expect(home.nativePlugins == prefix + "/lib/workbench/plugins")
      #expect(home.examples == prefix + "/share/doc/workbench/examples")
      #expect(home.path(ofPinned: "third_party/mediapipe/libmediapipe.so") == home.faceLibrary)
      #expect(
        home.path(ofPinned: "models/face_landmarker.task") == prefix + "/share/workbench/models/face_landmarker.task")
      #expect(home.faceBackendRepair.contains("apt install --reinstall workbench"))
    }
  }

  @Test func aCheckoutIsTheNearestFolderAboveTheExecutable() throws {
    let folder = try TemporaryFolder(prefix: "home-tests")
    defer { folder.remove() }
    try makeData(folder, at: "checkout")
    _ = try folder.write("checkout/.build/release/workbench", "")
    let home = try WorkbenchHome.locate(
      executable: folder.file("checkout/.build/release/workbench"), currentFolder: "/", environment: [:])
    #expect(home.layout == .checkout)
    #expect(home.root == folder.file("checkout"))
    #expect(home.faceLibrary == folder.file("checkout/third_party/mediapipe/libmediapipe.so"))
    #expect(home.nativePlugins == home.plugins)
    #expect(home.faceBackendRepair == "run scripts/install-face-backend")
  }

  @Test func workbenchHomeNamesEitherLayoutAndAWrongOneIsAnError() throws {
    let folder = try TemporaryFolder(prefix: "home-tests")
    defer { folder.remove() }
    try makeData(folder, at: "usr/share/workbench")
    try makeData(folder, at: "checkout")
    let installed = try WorkbenchHome.locate(
      executable: "/nowhere/bin/workbench", currentFolder: "/",
      environment: ["WORKBENCH_HOME": folder.file("usr/share/workbench")])
    #expect(installed.layout == .installed(prefix: folder.file("usr")))
    let checkout = try WorkbenchHome.locate(
      executable: "/nowhere/bin/workbench", currentFolder: "/", environment: ["WORKBENCH_HOME": folder.file("checkout")]
    )
    #expect(checkout.layout == .checkout)
    #expect(throws: Error.self) {
      try WorkbenchHome.locate(
        executable: "/nowhere/bin/workbench", currentFolder: "/", environment: ["WORKBENCH_HOME": folder.path])
    }
    #expect(throws: Error.self) {
      try WorkbenchHome.locate(executable: "/nowhere/bin/workbench", currentFolder: folder.path, environment: [:])
    }
  }

  @Test func theUsersFolderFollowsXDGAndTheMachinesCanBeNamed() {
    let plain = WorkbenchHome(root: "/w", environment: ["HOME": "/home/ann"])
    #expect(plain.userConfigFolder == "/home/ann/.config/workbench")
    #expect(plain.systemConfigFolder == "/etc/workbench")
    #expect(plain.configFolders == ["/home/ann/.config/workbench", "/etc/workbench"])
    let xdg = WorkbenchHome(
      root: "/w", environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "/cfg", "WORKBENCH_SYSTEM_CONFIG": "/site"])
    #expect(xdg.userConfigFolder == "/cfg/workbench")
    #expect(xdg.systemConfigFolder == "/site")
    // The machine's licensing comes before the user's: an integrator's holds for everyone.
    #expect(xdg.licenseFolders.prefix(2) == ["/site", "/cfg/workbench"])
    // A relative XDG_CONFIG_HOME is not a base directory (the XDG specification).
    let relative = WorkbenchHome(root: "/w", environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "cfg"])
    #expect(relative.userConfigFolder == "/home/ann/.config/workbench")
  }
}
