import type { SwitchProgress as Progress } from '../../core/protocol';

const ROWS = [
  ['turns', 'Turns'],
  ['facts', 'Facts'],
  ['episodes', 'Episodes'],
  ['themes', 'Themes'],
] as const;

/** An embedder switch's progress by kind, as the engine counts it (EmbeddingStatus.kinds). */
export function SwitchProgress({ kinds }: { kinds: Progress }) {
  return (
    <table className="switch-progress" data-testid="switch-progress" aria-label="Re-embedding progress by kind">
      <tbody>
        {ROWS.map(([key, label]) => (
          <tr key={key} data-testid={`switch-${key}`}>
            <th scope="row">{label}</th>
            <td>
              <span data-testid="done">{kinds[key].done}</span> / <span data-testid="total">{kinds[key].total}</span>
            </td>
            <td>
              <progress
                max={Math.max(kinds[key].total, 1)}
                value={kinds[key].total ? kinds[key].done : 1}
                aria-label={`${label} re-embedded`}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
