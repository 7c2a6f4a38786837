// Start-up floor 1: a compiled Bun program that prints one line (what `anvil --version` is).
export {}
await Bun.write(Bun.stdout, "hello\n")
