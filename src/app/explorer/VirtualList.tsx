/**
 * A minimal windowed list: fixed row height, renders only the rows in view (plus overscan), so
 * thousands of episodes or search hits stay fast. Not @tanstack/react-virtual: with one fixed row
 * height the whole job is two divisions on scroll, and this list's rows are never measured, so a
 * library's measuring, dynamic sizes and scroll-to machinery would be code we ship and never use.
 * Paging is the caller's: `onEndReached` asks for the next page near the bottom.
 */
import { useState, type ReactNode } from 'react';

export function VirtualList<T>(props: {
  readonly items: readonly T[];
  readonly rowHeight: number;
  readonly height: string;
  readonly label: string;
  readonly render: (item: T, index: number) => ReactNode;
  readonly onEndReached?: () => void;
}) {
  const { items, rowHeight } = props;
  const [top, setTop] = useState(0);
  const [viewport, setViewport] = useState(800);
  const first = Math.max(0, Math.floor(top / rowHeight) - 8);
  const last = Math.min(items.length, Math.ceil((top + viewport) / rowHeight) + 8);
  return (
    <div
      className="vlist"
      style={{ maxHeight: props.height }}
      aria-label={props.label}
      role="list"
      onScroll={(e) => {
        const el = e.currentTarget;
        setTop(el.scrollTop);
        setViewport(el.clientHeight);
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight * 4) props.onEndReached?.();
      }}
    >
      <div style={{ height: items.length * rowHeight, position: 'relative' }}>
        {items.slice(first, last).map((item, i) => (
          <div
            role="listitem"
            key={first + i}
            className="vrow"
            style={{ position: 'absolute', top: (first + i) * rowHeight, height: rowHeight, left: 0, right: 0 }}
          >
            {props.render(item, first + i)}
          </div>
        ))}
      </div>
    </div>
  );
}
