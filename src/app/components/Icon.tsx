/**
 * The few icons of the UI as inline SVG in the text colour: emoji and dingbats render as empty
 * boxes where no emoji font is installed (seen on Linux), these always draw. Decorative: the
 * button around an icon carries the accessible name.
 */
const PATHS = {
  edit: 'M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4',
  delete: 'M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6',
  move: 'M4 7h11l-3-3M15 7l-3 3M20 17H9l3-3M9 17l3 3',
  plus: 'M12 5v14M5 12h14',
  pin: 'M9 4h6M10 4l-1 7-3 3h12l-3-3-1-7M12 14v6',
  archive: 'M4 5h16v4H4zM6 9v10h12V9M10 13h4',
} as const;

export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
