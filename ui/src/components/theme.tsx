// The colour theme: the system's (default), light or dark, chosen in the header and remembered per
// user in this browser (localStorage, keyed by username). The choice is `data-theme` on <html>;
// the stylesheet's colours are light-dark() pairs that follow it.
import { useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const CHOICES: Array<[ThemeChoice, string]> = [
  ['system', 'System theme'],
  ['light', 'Light theme'],
  ['dark', 'Dark theme'],
];
/** The last user's choice, used on the sign-in page before anyone is known. */
const LAST_KEY = 'folio.theme';
const keyOf = (username: string) => `folio.theme.${username}`;

function read(key: string): ThemeChoice {
  try {
    const v = localStorage.getItem(key);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** On start: the theme last chosen in this browser, until the signed-in user's own is known. */
export function applyLastTheme(): void {
  applyTheme(read(LAST_KEY));
}

/** The signed-in user's theme and a setter that applies and remembers it. */
export function useTheme(username: string | null): [ThemeChoice, (c: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(() => (username ? read(keyOf(username)) : read(LAST_KEY)));
  useEffect(() => {
    if (!username) return;
    const own = read(keyOf(username));
    setChoice(own);
    applyTheme(own);
    localStorage.setItem(LAST_KEY, own);
  }, [username]);
  const set = (c: ThemeChoice) => {
    setChoice(c);
    applyTheme(c);
    try {
      if (username) localStorage.setItem(keyOf(username), c);
      localStorage.setItem(LAST_KEY, c);
    } catch {
      /* storage refused (private mode): the choice lasts for this page */
    }
  };
  return [choice, set];
}

export function ThemeSwitch({ username }: { username: string | null }) {
  const [choice, set] = useTheme(username);
  return (
    <select className="theme-switch" aria-label="Colour theme" value={choice} onChange={(e) => set(e.target.value as ThemeChoice)}>
      {CHOICES.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}
