// Graph copying driven by traversal rules lives here; see Docs/GraphCopy.md.
import PFCore
