"""What the tests and bench/ share: the app served and driven in Chromium (live), records
as a GPU run writes them (measured), the hand calculation's printed tables (hand_tables),
AppTest helpers and the page list (pages), one sample chart per figure builder (figures),
every first-party module's imports and the import graph's circles (imports)."""
