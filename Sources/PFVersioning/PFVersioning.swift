import PFCore
