// The SQLite store (through GRDB) lives here; see Docs/Stores.md.
internal import GRDB
import PFStores
