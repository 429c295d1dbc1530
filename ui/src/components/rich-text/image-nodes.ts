// The rich-text editor's images: a plain image (<img src alt>) and an image with a caption
// (<figure><img src alt><figcaption>…</figcaption></figure>). Both keep the stored path
// (/streams/download/…) in the HTML and show the file through the session, since a draft's file
// is not public. The caption is plain text, edited in the image dialog (not inline), as the
// image's own caption is.
import { Node } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import type { Node as PmNode } from '@tiptap/pm/model';
import { Plugin } from '@tiptap/pm/state';
import type { NodeView } from '@tiptap/pm/view';
import { fileObjectUrl, relativeUrl } from '../../api/client';

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

/** A node as these views read it. */
type ImageNode = { type: { name: string }; attrs: Record<string, unknown> };

const attrString = (node: ImageNode, name: string) => String(node.attrs[name] ?? '');

/** An image, drawn through the session. */
function imageView(node: PmNode): NodeView {
  const { img, show } = sessionImage();
  show(attrString(node, 'src'), attrString(node, 'alt'));
  return {
    dom: img,
    update: (n) => {
      if (n.type.name !== node.type.name) return false;
      show(attrString(n, 'src'), attrString(n, 'alt'));
      return true;
    },
  };
}

export const SessionImage = Image.extend(sessionViews('image', imageView));

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
          return { src: img.getAttribute('src'), alt: img.getAttribute('alt') ?? '', caption: ((el as HTMLElement).querySelector('figcaption')?.textContent ?? '').trim() };
        },
      },
    ];
  },
  renderHTML({ node }) {
    const img = ['img', { src: node.attrs.src, alt: node.attrs.alt ?? '' }];
    return node.attrs.caption ? ['figure', {}, img, ['figcaption', {}, node.attrs.caption]] : ['figure', {}, img];
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
