import PFTestSupport
import Testing
