// Tool prompts and skills are Markdown files bundled as text.
declare module "*.md" {
  const text: string
  export default text
}

// Text assets embedded in the binary (the plugin API's declarations).
declare module "*.txt" {
  const text: string
  export default text
}
