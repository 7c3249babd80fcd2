print("pfarchive")
