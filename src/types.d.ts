// Tool prompts and skills are Markdown files bundled as text.
declare module "*.md" {
  const text: string
  export default text
}
