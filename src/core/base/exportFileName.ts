/** `recollect-YYYY-MM-DD.sqlite` in local time: the name of an exported memory file. */
export function exportFileName(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `recollect-${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}.sqlite`;
}
