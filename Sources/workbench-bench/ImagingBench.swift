/// JPEG decode and encode, and the image conversions (filled in with the Imaging module).
func runImagingBenchmarks() throws {}
