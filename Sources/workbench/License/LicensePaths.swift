import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

/// configs/ of the workbench folder, as it is shown.
func bundledConfigsFolder() throws(WorkbenchError) -> String {
  WorkbenchHome.display(try WorkbenchHome.locate().configs)
}

/// configs/license.conf of the workbench folder, as it is shown.
func defaultLicenseConfigPath() throws(WorkbenchError) -> String {
  WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf")
}
