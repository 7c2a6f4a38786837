import { afterAll } from "bun:test"
import { removeTempDirs } from "./temp-dirs.ts"

// Preloaded by bunfig.toml: an afterAll here runs once, after every test file.
afterAll(removeTempDirs)
