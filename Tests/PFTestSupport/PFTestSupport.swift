@_exported import PFArchive
@_exported import PropertyBased
