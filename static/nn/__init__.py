"""``sampan.static.nn``: static-graph builders (control flow: cond, while_loop,
switch_case, case; fc and the other layer builders)."""
