// A page head that stays under the top bar while the page scrolls (the editor's title, state and
// Save). Its bottom edge is published as --sticky-bottom on the page's <main>, so bars that stick
// below it (the rich-text toolbar) sit under it whatever its height, never behind it.
import { useLayoutEffect, useRef, type ReactNode } from 'react';

export function StickyHead({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const head = ref.current;
    const main = head?.closest<HTMLElement>('.content');
    if (!head || !main) return;
    const update = () => main.style.setProperty('--sticky-bottom', `${Math.ceil(parseFloat(getComputedStyle(head).top) + head.offsetHeight)}px`);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(head);
    return () => {
      observer.disconnect();
      main.style.removeProperty('--sticky-bottom');
    };
  }, []);
  return (
    <div className="page-head sticky-head" ref={ref}>
      {children}
    </div>
  );
}
