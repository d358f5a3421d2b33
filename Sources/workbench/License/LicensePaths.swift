import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

/// The folders a license configuration is looked for in, first found wins.
func licenseConfigFolders() throws(WorkbenchError) -> [String] {
  try WorkbenchHome.locate().licenseFolders
}

/// configs/license.conf of the workbench folder, as it is shown.
func defaultLicenseConfigPath() throws(WorkbenchError) -> String {
  WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf")
}
