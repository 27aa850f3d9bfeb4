/** A timestamp in the browser's locale, with the exact ISO value on hover. */
export function TimeText({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span className="muted">—</span>;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {Number.isNaN(date.getTime()) ? iso : date.toLocaleString()}
    </time>
  );
}
