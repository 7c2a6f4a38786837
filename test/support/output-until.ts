/** Reads a process's output as it comes: `until(word)` waits until the text so far holds `word` (or the output ends). */
export const outputUntil = (stream: ReadableStream<Uint8Array>) => {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let out = ""
  const until = async (word: string): Promise<string> => {
    while (!out.includes(word)) {
      const { value, done } = await reader.read()
      if (done) break
      out += decoder.decode(value)
    }
    return out
  }
  return { until, text: () => out }
}
