// The umbrella module: `import PFArchive` brings in every pfarchive library module.
@_exported import PFCore
@_exported import PFJSON
@_exported import PFCompression
@_exported import PFPropertyList
@_exported import PFCBOR
@_exported import PFKeyedArchive
@_exported import PFTypedStream
@_exported import PFParse
@_exported import PFVersioning
@_exported import PFCoreData
@_exported import PFFormats
@_exported import PFGraphCopy
@_exported import PFStores
@_exported import PFDiff
@_exported import PFRealm
