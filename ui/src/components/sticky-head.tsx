// A page head that stays under the top bar while the page scrolls (the editor's title, state and
// Save). Its bottom edge is published as --sticky-bottom on <html>, so bars that stick below it
// (the rich-text toolbar) sit under it whatever its height, never behind it, and a field reached
// by Tab scrolls into view below it (the page's scroll-padding-top, styles.css).
import { useLayoutEffect, useRef, type ReactNode } from 'react';

export function StickyHead({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const head = ref.current;
    const root = document.documentElement;
    if (!head) return;
    const update = () => root.style.setProperty('--sticky-bottom', `${Math.ceil(parseFloat(getComputedStyle(head).top) + head.offsetHeight)}px`);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(head);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--sticky-bottom');
    };
  }, []);
  return (
    <div className="page-head sticky-head" ref={ref}>
      {children}
    </div>
  );
}
