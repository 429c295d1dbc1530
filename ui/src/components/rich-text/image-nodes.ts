// The rich-text editor's images: a plain image (<img src alt>) and an image with a caption
// (<figure><img src alt><figcaption>…</figcaption></figure>). Both keep the stored path
// (/streams/download/…) in the HTML and show the file through the session, since a draft's file
// is not public. The caption is plain text, edited in the image dialog (not inline), as the
// image's own caption is. Each image has a size (small, medium, or full width: the default) and an
// alignment (left or right, the text wrapping beside it, or centred: the default), stored as
// classes on the image's outermost element — the <figure> when it has a caption, else the <img>:
// `image-small` / `image-medium`, `image-left` / `image-center` / `image-right`. The defaults
// add no class, so bodies written before read as they did.
import { Node } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import type { Node as PmNode } from '@tiptap/pm/model';
import { Plugin } from '@tiptap/pm/state';
import type { NodeView } from '@tiptap/pm/view';
import { fileObjectUrl, relativeUrl } from '../../api/client';
import './image-layout.css';

/** The session's copies of the files shown (`blob:` URLs by path), so a node drawn again (an undo,
 *  the editor leaving the page) does not fetch its file again. The oldest go past a hundred. */
const shownFiles = new Map<string, Promise<string>>();

function sessionCopy(path: string): Promise<string> {
  let copy = shownFiles.get(path);
  if (!copy) {
    copy = fileObjectUrl(path);
    shownFiles.set(path, copy);
    copy.catch(() => shownFiles.delete(path));
    if (shownFiles.size > 100) {
      const [oldest, url] = shownFiles.entries().next().value!;
      shownFiles.delete(oldest);
      void url.then(URL.revokeObjectURL, () => {});
    }
  }
  return copy;
}

/** An <img> that shows `src` through the session when it is a server path; `update` keeps it current. */
function sessionImage() {
  const img = document.createElement('img');
  let shown = '';
  const show = (src: string, alt: string) => {
    img.alt = alt;
    if (src === shown) return;
    shown = src;
    // A file of this server (a path, or the absolute URL API clients store) is fetched with the
    // session; one that cannot be is left blank with its alt text, never asked for without it.
    const own = relativeUrl(src);
    if (own.startsWith('/')) sessionCopy(own).then((u) => (img.src = u), () => img.removeAttribute('src'));
    else img.src = src;
  };
  return { img, show };
}

/**
 * The node's view, given twice: as the extension's (tiptap draws the first content before the
 * plugins are in) and as a plugin's prop, which stays when <EditorContent> unmounts and clears the
 * editor's own views — the nodes would be drawn again from `renderHTML`, plain <img src> in the
 * page, each fetched without the session.
 */
function sessionViews(name: string, view: (node: PmNode) => NodeView) {
  return {
    addNodeView: () => ({ node }: { node: PmNode }) => view(node),
    addProseMirrorPlugins: () => [new Plugin({ props: { nodeViews: { [name]: (node) => view(node) } } })],
  };
}

export const IMAGE_SIZES = ['small', 'medium', 'full'] as const;
export const IMAGE_ALIGNS = ['left', 'center', 'right'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];
export type ImageAlign = (typeof IMAGE_ALIGNS)[number];
const DEFAULT_SIZE: ImageSize = 'full';
const DEFAULT_ALIGN: ImageAlign = 'center';

/** The size and alignment an element's classes give (the defaults without one). */
function layoutOf(el: Element): { size: ImageSize; align: ImageAlign } {
  const has = (name: string) => el.classList.contains(`image-${name}`);
  return { size: IMAGE_SIZES.find(has) ?? DEFAULT_SIZE, align: IMAGE_ALIGNS.find(has) ?? DEFAULT_ALIGN };
}

/** The classes of a size and an alignment ('' for the defaults). */
export function layoutClass(size: unknown, align: unknown): string {
  return [size && size !== DEFAULT_SIZE ? `image-${size}` : '', align && align !== DEFAULT_ALIGN ? `image-${align}` : ''].filter(Boolean).join(' ');
}

/** The attributes size and align, read from and written as classes. */
const layoutAttributes = {
  size: { default: DEFAULT_SIZE, parseHTML: (el: HTMLElement) => layoutOf(el).size, renderHTML: () => ({}) },
  align: { default: DEFAULT_ALIGN, parseHTML: (el: HTMLElement) => layoutOf(el).align, renderHTML: () => ({}) },
};

/** A node as these views read it. */
type ImageNode = { type: { name: string }; attrs: Record<string, unknown> };

const attrString = (node: ImageNode, name: string) => String(node.attrs[name] ?? '');

/** The element's classes for the node's size and alignment. */
function showLayout(el: HTMLElement, n: ImageNode) {
  // Only its own classes: ProseMirror marks a selected node with one of its own.
  for (const c of [...el.classList]) if (c.startsWith('image-')) el.classList.remove(c);
  const classes = layoutClass(n.attrs.size, n.attrs.align);
  if (classes) el.classList.add(...classes.split(' '));
  if (!el.classList.length) el.removeAttribute('class');
}

/** An image, drawn through the session. */
function imageView(node: PmNode): NodeView {
  const { img, show } = sessionImage();
  const render = (n: ImageNode) => {
    show(attrString(n, 'src'), attrString(n, 'alt'));
    showLayout(img, n);
  };
  render(node);
  return {
    dom: img,
    update: (n) => {
      if (n.type.name !== node.type.name) return false;
      render(n);
      return true;
    },
  };
}

export const SessionImage = Image.extend({
  addAttributes() {
    return { ...this.parent?.(), ...layoutAttributes };
  },
  renderHTML({ HTMLAttributes, node }) {
    const classes = layoutClass(node.attrs.size, node.attrs.align);
    return ['img', { ...HTMLAttributes, ...(classes ? { class: classes } : {}) }];
  },
  ...sessionViews('image', imageView),
});

export const FIGURE = 'imageFigure';

/** An image with its caption, one block the editor selects, moves and deletes whole. */
export const ImageFigure = Node.create({
  name: FIGURE,
  group: 'block',
  atom: true,
  draggable: true,
  selectable: true,
  addAttributes() {
    return {
      src: { default: null },
      alt: { default: '' },
      caption: { default: '' },
      ...layoutAttributes,
    };
  },
  parseHTML() {
    return [
      {
        tag: 'figure',
        // A figure without an image is not ours (its text is kept by the other rules).
        getAttrs: (el) => {
          const img = (el as HTMLElement).querySelector('img');
          if (!img?.getAttribute('src')) return false;
          return { src: img.getAttribute('src'), alt: img.getAttribute('alt') ?? '', caption: ((el as HTMLElement).querySelector('figcaption')?.textContent ?? '').trim(), ...layoutOf(el as HTMLElement) };
        },
      },
    ];
  },
  renderHTML({ node }) {
    const img = ['img', { src: node.attrs.src, alt: node.attrs.alt ?? '' }];
    const classes = layoutClass(node.attrs.size, node.attrs.align);
    const attrs = classes ? { class: classes } : {};
    return node.attrs.caption ? ['figure', attrs, img, ['figcaption', {}, node.attrs.caption]] : ['figure', attrs, img];
  },
  ...sessionViews(FIGURE, figureView),
});

/** An image with its caption, drawn through the session. */
function figureView(node: PmNode): NodeView {
  const dom = document.createElement('figure');
  const { img, show } = sessionImage();
  const caption = document.createElement('figcaption');
  dom.append(img, caption);
  const render = (n: ImageNode) => {
    show(attrString(n, 'src'), attrString(n, 'alt'));
    showLayout(dom, n);
    caption.textContent = attrString(n, 'caption');
    caption.hidden = !caption.textContent;
  };
  render(node);
  return {
    dom,
    update: (n) => {
      if (n.type.name !== FIGURE) return false;
      render(n);
      return true;
    },
  };
}
