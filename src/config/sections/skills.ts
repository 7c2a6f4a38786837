import { Schema } from "effect"
import { Names, setting, type ConfigSection } from "../section.ts"

/** Where skills are found besides .anvil/skills, ~/.config/anvil/skills and the built-ins. */
export const skillsSection: ConfigSection = {
  fields: () => ({
    skills: setting(
      Schema.Struct({
        paths: setting(Schema.Union([Schema.String, Names()]), "Folders of <name>/SKILL.md, relative to the root, absolute or ~/….", []),
        only: setting(Names(), "Only these skills are offered, loaded and run as /name (an Agent SDK program's skills option); unset: every skill found."),
      }),
      "Skill folders.",
    ),
  }),
}
